package safefile_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/hyperctl/hyperctl/internal/ground/safefile"
)

// A folder has one writer at a time: a second Acquire, from this process
// or another, fails at once with a *LockedError that names the holder.
// The kernel drops the lock when its holder exits, even by SIGKILL.
func ExampleAcquire() {
	dir, err := os.MkdirTemp("", "safefile-example")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)

	lock, err := safefile.Acquire(dir, ".lock", "run folder")
	if err != nil {
		fmt.Println(err)
		return
	}
	_, err = safefile.Acquire(dir, ".lock", "run folder")
	var locked *safefile.LockedError
	if !errors.As(err, &locked) {
		fmt.Println("not locked:", err)
		return
	}
	fmt.Println("held by this process:", locked.PID == os.Getpid())

	if err := lock.Release(); err != nil {
		fmt.Println(err)
		return
	}
	again, err := safefile.Acquire(dir, ".lock", "run folder")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("acquired after the release")
	if err := again.Release(); err != nil {
		fmt.Println(err)
	}
	// Output:
	// held by this process: true
	// acquired after the release
}

// WriteAtomic replaces a file whole: a crash leaves the old content or the
// new, never a mix. ReadRegular reads it back, refusing anything that is not
// a regular file within the size cap.
func ExampleWriteAtomic() {
	dir, err := os.MkdirTemp("", "safefile-example")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)

	path := filepath.Join(dir, "summary.json")
	for _, v := range []string{`{"frames": 1}`, `{"frames": 2}`} {
		if err := safefile.WriteAtomic(path, []byte(v)); err != nil {
			fmt.Println(err)
			return
		}
	}
	data, err := safefile.ReadRegular(path, 1<<20)
	fmt.Println(string(data), err)

	_, err = safefile.ReadRegular(dir, 1<<20)
	var notRegular *safefile.NotRegularError
	fmt.Println(errors.As(err, &notRegular))
	// Output:
	// {"frames": 2} <nil>
	// true
}
