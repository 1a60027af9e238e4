package service

// The errors of the session RPCs; handler.go maps each to its Connect code.

import "fmt"

// errNotFound is a session id that names no session.
type errNotFound struct{ id string }

func (e errNotFound) Error() string {
	return fmt.Sprintf("session_id: no session %q (ListSessions lists them)", e.id)
}

// errConflict is a request that contradicts the session's state (wrong
// iteration, a different definition under the same id).
type errConflict struct{ msg string }

func (e errConflict) Error() string { return e.msg }

// errExists is a create with an id that holds a different definition.
type errExists struct{ msg string }

func (e errExists) Error() string { return e.msg }

// errCapacity is a create beyond MaxSessions.
type errCapacity struct{ msg string }

func (e errCapacity) Error() string { return e.msg }

// errBroken is a session whose disk state could not be written.
type errBroken struct{ msg string }

func (e errBroken) Error() string { return e.msg }
