package suggest_test

import (
	"fmt"

	"github.com/hyperctl/hyperctl/internal/ground/suggest"
)

func ExampleDidYouMean() {
	keys := []string{"batch_size", "clip", "gae_lambda", "lr"}
	fmt.Printf("ppo.clp: unknown key%s\n", suggest.DidYouMean("clp", keys, "ppo."))
	// Output: ppo.clp: unknown key (did you mean ppo.clip?)
}
