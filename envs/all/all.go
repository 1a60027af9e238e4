// Package all registers every hyperctl environment: import it for its side
// effect, as `import _ "github.com/hyperctl/hyperctl/envs/all"`.
package all

import (
	// MuJoCo environments: HalfCheetah-v4, InvertedDoublePendulum-v4,
	// Pusher-v4, Reacher-v4.
	_ "github.com/hyperctl/hyperctl/envs/mujoco"
)
