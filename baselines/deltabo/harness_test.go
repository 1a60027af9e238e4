package deltabo

import (
	"github.com/hyperctl/hyperctl/baselines/internal/methodtest"
)

// Shorthands for the shared harness (baselines/internal/methodtest) in
// source_test.go.
var (
	sq          = methodtest.Sq
	paperSpace  = methodtest.PaperSpace
	newFeedback = methodtest.NewFeedback
)
