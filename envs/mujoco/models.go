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
	//go:embed models/humanoid.xml
	humanoidXML string
	//go:embed models/inverted_double_pendulum.xml
	invertedDoublePendulumXML string
	//go:embed models/pusher.xml
	pusherXML string
	//go:embed models/reacher.xml
	reacherXML string
)

// ModelXML returns the embedded MJCF document of an environment by short
// name: "ant", "halfcheetah", "humanoid", "inverteddoublependulum",
// "pusher" or "reacher".
func ModelXML(name string) (string, bool) {
	switch name {
	case "ant":
		return antXML, true
	case "halfcheetah":
		return halfCheetahXML, true
	case "humanoid":
		return humanoidXML, true
	case "inverteddoublependulum":
		return invertedDoublePendulumXML, true
	case "pusher":
		return pusherXML, true
	case "reacher":
		return reacherXML, true
	}
	return "", false
}
