// Package all registers every hyperctl environment: import it for its side
// effect, as `import _ "github.com/hyperctl/hyperctl/envs/all"`.
package all

import (
	// Box2D environment: BipedalWalker-v3.
	_ "github.com/hyperctl/hyperctl/envs/box2d"
	// MuJoCo environments: Ant-v4, HalfCheetah-v4, Hopper-v4, Humanoid-v4,
	// InvertedDoublePendulum-v4, InvertedPendulum-v4, Pusher-v4, Reacher-v4,
	// Swimmer-v4, Walker2d-v4.
	_ "github.com/hyperctl/hyperctl/envs/mujoco"
)
