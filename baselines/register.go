package baselines

// The methods in baselines' subpackages register themselves in their init
// functions; importing them here makes `import _ ".../baselines"` register
// every baseline. They share package baselines' helpers through
// baselines/internal/common, so there is no import cycle.
import (
	_ "github.com/hyperctl/hyperctl/baselines/bilevel" // registers "bilevel"
	_ "github.com/hyperctl/hyperctl/baselines/goucb"   // registers "goucb"
)
