package termtext_test

import (
	"fmt"
	"os"

	"github.com/hyperctl/hyperctl/internal/ground/termtext"
)

func ExampleFold() {
	line := "lineages: the members' weights descend from 2 of 8 starting members (3, 5); by member: 3 3 5 3 5 3 3 5\n"
	fmt.Print(termtext.Fold(line, 60))
	// Output:
	// lineages: the members' weights descend from 2 of 8 starting
	//   members (3, 5); by member: 3 3 5 3 5 3 3 5
}

func ExampleWidth() {
	// A command folds what it prints to its terminal; a pipe gets it whole.
	w := os.Stdout
	fmt.Fprint(w, termtext.Fold("done\n", termtext.Width(w)))
	// Output: done
}
