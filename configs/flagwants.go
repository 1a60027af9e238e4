package configs

// FlagWants words what a command-line flag of pflag type typ accepts
// (an integer, a number, ...), for the message of a value of the wrong type.
func FlagWants(typ string) string {
	switch typ {
	case "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64", "count":
		return "an integer"
	case "float32", "float64":
		return "a number"
	case "duration":
		return "a duration such as 500ms, 30s or 2m"
	case "bool":
		return "true or false"
	}
	return "a " + typ
}
