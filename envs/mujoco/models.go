package mujoco

import _ "embed" // the MJCF models are embedded

// The MJCF models, written for hyperctl from the figures of Gymnasium's
// v4 environments (models/*.xml). A test compares each compiled model with
// Gymnasium's own file when that is available.
var (
	//go:embed models/ant.xml
	antXML string
	//go:embed models/half_cheetah.xml
	halfCheetahXML string
	//go:embed models/hopper.xml
	hopperXML string
	//go:embed models/humanoid.xml
	humanoidXML string
	//go:embed models/inverted_pendulum.xml
	invertedPendulumXML string
	//go:embed models/inverted_double_pendulum.xml
	invertedDoublePendulumXML string
	//go:embed models/pusher.xml
	pusherXML string
	//go:embed models/reacher.xml
	reacherXML string
	//go:embed models/swimmer.xml
	swimmerXML string
	//go:embed models/walker2d.xml
	walker2dXML string
)

// ModelXML returns the embedded MJCF document of an environment by short
// name: "ant", "halfcheetah", "hopper", "humanoid",
// "inverteddoublependulum", "invertedpendulum", "pusher", "reacher",
// "swimmer" or "walker2d".
func ModelXML(name string) (string, bool) {
	switch name {
	case "ant":
		return antXML, true
	case "halfcheetah":
		return halfCheetahXML, true
	case "hopper":
		return hopperXML, true
	case "humanoid":
		return humanoidXML, true
	case "invertedpendulum":
		return invertedPendulumXML, true
	case "inverteddoublependulum":
		return invertedDoublePendulumXML, true
	case "pusher":
		return pusherXML, true
	case "reacher":
		return reacherXML, true
	case "swimmer":
		return swimmerXML, true
	case "walker2d":
		return walker2dXML, true
	}
	return "", false
}
