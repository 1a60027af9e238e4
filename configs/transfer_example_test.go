package configs_test

import (
	"fmt"

	_ "github.com/hyperctl/hyperctl/baselines/all"
	"github.com/hyperctl/hyperctl/configs"
)

// Which registered controllers take a folder of earlier runs to transfer
// from (`--transfer-from`): DeltaBO does, GP-UCB does not.
func ExampleSupportsTransfer() {
	for _, name := range []string{"deltabo", "gpucb", "nonexistent"} {
		fmt.Println(name, configs.SupportsTransfer(name))
	}
	// Output:
	// deltabo true
	// gpucb false
	// nonexistent false
}
