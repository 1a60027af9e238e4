module example.com/customenv

go 1.26.0

require (
	github.com/hyperctl/hyperctl v0.0.0-00010101000000-000000000000
	github.com/rs/zerolog v1.34.0
)

require (
	github.com/BurntSushi/toml v1.5.0 // indirect
	github.com/agnivade/levenshtein v1.2.2 // indirect
	github.com/google/renameio/v2 v2.0.2 // indirect
	github.com/mattn/go-colorable v0.1.13 // indirect
	github.com/mattn/go-isatty v0.0.20 // indirect
	github.com/nlpodyssey/safetensors v0.0.0-20250209183917-bfb01cc25f7c // indirect
	github.com/sugarme/gotch v0.7.0 // indirect
	golang.org/x/sys v0.49.0 // indirect
	golang.org/x/term v0.47.0 // indirect
	golang.org/x/tools v0.26.0 // indirect
	gonum.org/v1/gonum v0.16.0 // indirect
	google.golang.org/protobuf v1.36.12 // indirect
)

// hyperctl is not published: this module uses the checkout two folders up.
replace github.com/hyperctl/hyperctl => ../..

// hyperctl's own replace of gotch does not reach a dependent module: add
// this line, pointing at the gotch that hyperctl's scripts/setup.sh patched.
replace github.com/sugarme/gotch => ../../third_party/gotch
