// Package cgofree checks the list of packages that build and test without
// cgo (no libtorch, no MuJoCo): the cgo_free array of scripts/check.sh,
// whose tests `make test` runs with CGO_ENABLED=0. Its test fails when a
// listed package stops building without cgo, and when a package of the
// module that reaches no cgo code, tests included, is missing from the
// list, so the list stays whole as packages come and go.
package cgofree
