package fileio

import (
	"fmt"
	"os"
	"path/filepath"
)

// WriteAtomic replaces path with data, durably: it writes a temporary file
// in the same folder (mode 0600), fsyncs it, renames it over path and fsyncs
// the folder, so a crash (of the process or the machine) leaves either the
// old content or the new one, and once it returns the new one survives a
// power loss.
func WriteAtomic(path string, data []byte) error { return writeAtomic(path, data, true) }

// WriteAtomicNoSync is WriteAtomic without the fsyncs: a process crash still
// leaves the old or the new content, a machine crash may leave neither. It
// exists for benchmarks that measure what durability costs.
func WriteAtomicNoSync(path string, data []byte) error { return writeAtomic(path, data, false) }

func writeAtomic(path string, data []byte, sync bool) error {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	tmp := f.Name()
	ok := false
	defer func() {
		if !ok {
			f.Close()
			os.Remove(tmp)
		}
	}()
	if err := f.Chmod(0o600); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if _, err := f.Write(data); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if sync {
		if err := f.Sync(); err != nil {
			return fmt.Errorf("write %s: fsync: %w", path, err)
		}
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	ok = true
	if !sync {
		return nil
	}
	return SyncDir(dir)
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
