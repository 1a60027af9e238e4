package service

import (
	"errors"
	"sort"

	"github.com/rs/zerolog"
)

// SessionState is one session of a state folder as Check found it.
type SessionState struct {
	ID     string
	Method string
	// Iteration is the number of iterations it has observed (0 when
	// quarantined).
	Iteration int
	// Failure is empty when the server would serve the session; otherwise
	// it is why the session would be quarantined, naming the file.
	Failure string
	// File is the damaged file (or the session's folder), with Failure.
	File string
}

// Check loads every session of the state folder stateDir as New does, then
// reports each one's state, sorted by id, without serving and without
// changing any file: a torn last record, which New cuts, is only logged,
// and leftovers of interrupted creations are left alone. It takes the
// folder's lock (a *safefile.LockedError while a server holds it), so that no
// server writes while it reads.
func Check(stateDir string, log zerolog.Logger) (states []SessionState, err error) {
	s, err := open(Options{StateDir: stateDir, Log: log}, true)
	if err != nil {
		return nil, err
	}
	defer func() {
		var errs []error
		for _, ss := range s.sessions {
			errs = append(errs, ss.files.close())
		}
		err = errors.Join(err, errors.Join(errs...), s.lock.Release())
	}()
	for _, ss := range s.sessions {
		st := SessionState{ID: ss.id, Method: ss.method}
		if ss.failure != nil {
			st.Failure, st.File = ss.failure.reason, ss.failure.file
		} else {
			st.Iteration = ss.ctl.Iteration()
		}
		states = append(states, st)
	}
	sort.Slice(states, func(i, j int) bool { return states[i].ID < states[j].ID })
	return states, nil
}
