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

// errQuarantined is a request for a session that could not be restored
// when the server started (Server.quarantine).
type errQuarantined struct {
	id     string
	file   string // the damaged file (or the session's folder)
	reason string // the load error, naming the file
}

func (e *errQuarantined) Error() string {
	return fmt.Sprintf("session_id: session %q is quarantined: it could not be restored when the server started: %s; its files are kept as they are and the other sessions are served (repair the file and restart, or DeleteSession it)", e.id, e.reason)
}
