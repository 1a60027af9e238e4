package safefile

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/google/renameio/v2"
)

// WriteAtomic replaces path with data, durably: renameio writes a temporary
// file in the same folder, fsyncs it and renames it over path; then the
// folder is fsync'd, which renameio leaves to its caller, so the rename
// itself survives a power loss. A crash (of the process or the machine)
// leaves either the old content or the new one; once WriteAtomic returns,
// the new one. The file's mode is 0666 less the umask, as other tools'
// outputs (run folders on a shared cluster folder stay readable by the
// group); WritePrivate writes 0600.
func WriteAtomic(path string, data []byte) error {
	return writeAtomic(path, data, renameio.WithPermissions(0o666))
}

// WritePrivate is WriteAtomic with mode 0600 whatever the umask, for
// state that only its owner may read (serve's --state).
func WritePrivate(path string, data []byte) error {
	return writeAtomic(path, data, renameio.WithStaticPermissions(0o600))
}

func writeAtomic(path string, data []byte, mode renameio.Option) error {
	if err := renameio.WriteFile(path, data, 0o600, mode); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return SyncDir(filepath.Dir(path))
}

// SyncDir fsyncs a folder, making the creations, renames and removals of
// entries in it durable.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("fsync %s: %w", dir, err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("fsync %s: %w", dir, err)
	}
	return nil
}
