package configs

// The default configs name HyperController, which registers itself in its
// own package.
import _ "github.com/hyperctl/hyperctl/controller/hypercontroller"
