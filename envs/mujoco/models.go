package mujoco

import _ "embed" // the MJCF models are embedded

// The four MJCF models, written for hyperctl from the figures of Gymnasium's
// v4 environments (models/*.xml). A test compares each compiled model with
// Gymnasium's own file when that is available.
var (
	//go:embed models/half_cheetah.xml
	halfCheetahXML string
	//go:embed models/inverted_double_pendulum.xml
	invertedDoublePendulumXML string
	//go:embed models/pusher.xml
	pusherXML string
	//go:embed models/reacher.xml
	reacherXML string
)

// ModelXML returns the embedded MJCF document of an environment by short
// name: "halfcheetah", "inverteddoublependulum", "pusher" or "reacher".
func ModelXML(name string) (string, bool) {
	switch name {
	case "halfcheetah":
		return halfCheetahXML, true
	case "inverteddoublependulum":
		return invertedDoublePendulumXML, true
	case "pusher":
		return pusherXML, true
	case "reacher":
		return reacherXML, true
	}
	return "", false
}
