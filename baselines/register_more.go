package baselines

// The controllers in subpackages register themselves in their init
// functions; importing package baselines registers them too. They do not
// import package baselines, so there is no cycle.
import (
	_ "github.com/hyperctl/hyperctl/baselines/deltabo"  // "deltabo": DeltaBO (transfer from earlier runs)
	_ "github.com/hyperctl/hyperctl/baselines/neuralbo" // "neuralbo": NeuralBO
)
