package safefile

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/google/renameio/v2"
)

// WriteAtomic replaces path with data, durably: renameio writes a temporary
// file in the same folder (mode 0600), fsyncs it and renames it over path;
// then the folder is fsync'd, which renameio leaves to its caller, so the
// rename itself survives a power loss. A crash (of the process or the
// machine) leaves either the old content or the new one; once WriteAtomic
// returns, the new one.
func WriteAtomic(path string, data []byte) error {
	if err := renameio.WriteFile(path, data, 0o600, renameio.WithStaticPermissions(0o600)); err != nil {
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
