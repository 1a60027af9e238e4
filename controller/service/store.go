package service

import (
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/rs/zerolog"
	"google.golang.org/protobuf/proto"

	"github.com/hyperctl/hyperctl/controller/service/internal/statepb"
	"github.com/hyperctl/hyperctl/internal/ground/safefile"
)

// The --state folder:
//
//	serve.lock              flock'd for the server's life; holds its pid
//	sessions/<id>/log       the session's records: header, Created, then one Observed per iteration
//	sessions/<id>/snapshot  the controller after some iteration (header + one record), replaced atomically
//
// A session folder is created under a temporary name and renamed into
// place, and renamed away before it is removed, so a crash never leaves a
// half-made or half-deleted session under sessions/.
const (
	sessionsDir = "sessions"
	logName     = "log"
	snapName    = "snapshot"
	logMagic    = "HCLG"
	snapMagic   = "HCSN"
	logVersion  = 1
	snapVersion = 1
	newPrefix   = ".new-"
	delPrefix   = ".del-"
)

// sessionFiles is one session's open log.
type sessionFiles struct {
	dir     string
	f       *os.File
	size    int64   // bytes of intact records: appends go here
	alloc   int64   // the file's size: [size, alloc) is zeros on disk
	chunk   int64   // preallocation unit (logChunk; smaller in tests)
	offsets []int64 // frame offset of the Observed record of each iteration
	noSync  bool
}

func randomSuffix() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// createSessionFiles writes a new session's folder with its first record.
func createSessionFiles(root, id string, created *statepb.Created, chunk int64, noSync bool) (*sessionFiles, error) {
	payload, err := proto.Marshal(&statepb.Record{Kind: &statepb.Record_Created{Created: created}})
	if err != nil {
		return nil, fmt.Errorf("session %s: encode: %w", id, err)
	}
	tmp := filepath.Join(root, newPrefix+id+"-"+randomSuffix())
	if err := os.Mkdir(tmp, dirMode); err != nil {
		return nil, fmt.Errorf("session %s: %w", id, err)
	}
	fail := func(err error) (*sessionFiles, error) {
		os.RemoveAll(tmp)
		return nil, fmt.Errorf("session %s: %w", id, err)
	}
	f, err := os.OpenFile(filepath.Join(tmp, logName), os.O_RDWR|os.O_CREATE|os.O_EXCL, fileMode)
	if err != nil {
		return fail(err)
	}
	data := appendFrame(fileHeader(logMagic, logVersion), payload)
	alloc := chunkEnd(int64(len(data)), chunk)
	if _, err := f.Write(append(data, make([]byte, alloc-int64(len(data)))...)); err != nil {
		f.Close()
		return fail(err)
	}
	if !noSync {
		if err := f.Sync(); err != nil {
			f.Close()
			return fail(err)
		}
	}
	dir := filepath.Join(root, id)
	if err := os.Rename(tmp, dir); err != nil {
		f.Close()
		return fail(err)
	}
	if !noSync {
		if err := safefile.SyncDir(root); err != nil {
			f.Close()
			return nil, err
		}
	}
	return &sessionFiles{dir: dir, f: f, size: int64(len(data)), alloc: alloc, chunk: chunk, noSync: noSync}, nil
}

// loaded is what loadSessionFiles read from a session folder.
type loaded struct {
	files    *sessionFiles
	created  *statepb.Created
	snapshot *statepb.Snapshot   // nil when there is none
	tail     []*statepb.Observed // the records after the snapshot's iteration
	last     *statepb.Observed   // the last record, nil before any
	torn     int64               // bytes of a torn last record at files.size, for repair to cut
}

// loadSessionFiles opens a session folder: it checks every record of the
// log (checksums, then consecutive iterations from 0) and reads the
// snapshot. A torn last record (readFrames) is left out of the records and
// noted in torn; anything else damaged is an error naming the file. It
// changes no file: a torn record is cut by repair, once the session has
// been rebuilt. readOnly (serve --check) opens the log read-only.
func loadSessionFiles(dir string, chunk int64, noSync, readOnly bool) (*loaded, error) {
	path := filepath.Join(dir, logName)
	mode := os.O_RDWR
	if readOnly {
		mode = os.O_RDONLY
	}
	f, err := os.OpenFile(path, mode, 0)
	if err != nil {
		return nil, fmt.Errorf("session log: %w", err)
	}
	ok := false
	defer func() {
		if !ok {
			f.Close()
		}
	}()
	b, err := io.ReadAll(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if err := checkHeader(path, b, logMagic, logVersion); err != nil {
		return nil, err
	}
	frames, good, torn, err := readFrames(path, b, headerLen)
	if err != nil {
		return nil, err
	}
	if len(frames) == 0 {
		return nil, fmt.Errorf("%s: no creation record", path)
	}
	var first statepb.Record
	if err := proto.Unmarshal(frames[0].payload, &first); err != nil || first.GetCreated() == nil {
		return nil, fmt.Errorf("%s: first record is not a session creation", path)
	}
	l := &loaded{created: first.GetCreated()}
	alloc := int64(len(b))
	if torn {
		l.torn, alloc = int64(len(b))-good, good // the file's size once repair has cut it
	}
	sf := &sessionFiles{dir: dir, f: f, size: good, alloc: alloc, chunk: chunk, noSync: noSync, offsets: make([]int64, 0, len(frames)-1)}
	snap, err := readSnapshot(filepath.Join(dir, snapName))
	if err != nil {
		return nil, err
	}
	from := 0
	if snap != nil {
		from = int(snap.GetIteration())
		if from < 0 || from > len(frames)-1 {
			cut := ""
			if torn {
				cut = " before its torn last record"
			}
			return nil, fmt.Errorf("%s: snapshot after iteration %d, but the log %s holds %d iterations%s: the log lost acknowledged records", filepath.Join(dir, snapName), from, path, len(frames)-1, cut)
		}
	}
	for i, fr := range frames[1:] {
		sf.offsets = append(sf.offsets, fr.off)
		if i < from-1 {
			continue // covered by the snapshot; its checksum was verified
		}
		var r statepb.Record
		if err := proto.Unmarshal(fr.payload, &r); err != nil || r.GetObserved() == nil {
			return nil, fmt.Errorf("%s: record at byte %d is not an observation", path, fr.off)
		}
		o := r.GetObserved()
		if int(o.GetIteration()) != i {
			return nil, fmt.Errorf("%s: record at byte %d holds iteration %d, want %d", path, fr.off, o.GetIteration(), i)
		}
		if i >= from {
			l.tail = append(l.tail, o)
		}
		l.last = o
	}
	l.files, l.snapshot = sf, snap
	ok = true
	return l, nil
}

// repair readies the files of a rebuilt session for appends: it cuts its
// torn last record, with a warning, and removes the leftovers of an
// interrupted snapshot write. It runs only once the session has been
// rebuilt, so that a session that is quarantined keeps its files as they
// are. readOnly (serve --check) only logs the cut that serve would make.
func (l *loaded) repair(readOnly bool, log zerolog.Logger) error {
	sf := l.files
	path := filepath.Join(sf.dir, logName)
	if l.torn > 0 {
		ev := log.Warn().Str("file", path).Int64("offset", sf.size).Int64("torn_bytes", l.torn)
		const why = "a torn last record (the file ends inside it: a write cut short by a crash, never acknowledged)"
		if readOnly {
			ev.Msg(why + "; serve cuts it")
			return nil
		}
		ev.Msg("cutting " + why)
		if err := sf.f.Truncate(sf.size); err != nil {
			return fmt.Errorf("%s: cut torn record: %w", path, err)
		}
		if !sf.noSync {
			if err := sf.f.Sync(); err != nil {
				return fmt.Errorf("%s: %w", path, err)
			}
		}
		l.torn = 0
	}
	if readOnly {
		return nil
	}
	tmps, _ := filepath.Glob(filepath.Join(sf.dir, "."+snapName+"*"))
	for _, t := range tmps {
		os.Remove(t)
	}
	return nil
}

// readSnapshot reads a snapshot file; a missing file is (nil, nil).
func readSnapshot(path string) (*statepb.Snapshot, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if err := checkHeader(path, b, snapMagic, snapVersion); err != nil {
		return nil, fmt.Errorf("%s (remove it to rebuild the session from its log)", err)
	}
	frames, _, torn, err := readFrames(path, b, headerLen)
	if err != nil || torn || len(frames) != 1 {
		return nil, fmt.Errorf("%s: damaged snapshot (checksum or length); remove it to rebuild the session from its log", path)
	}
	var s statepb.Snapshot
	if err := proto.Unmarshal(frames[0].payload, &s); err != nil {
		return nil, fmt.Errorf("%s: %w; remove it to rebuild the session from its log", path, err)
	}
	return &s, nil
}

// logChunk is the unit in which a log grows. The log is preallocated: its
// file is extended by a chunk of zeros, written (not just fallocate'd, whose
// unwritten extents would need a metadata update on first write) and
// fsync'd, before any record is written into it. An append within the chunk
// then overwrites allocated, initialised blocks without changing the file's
// size, so fdatasync has only that data to flush: fdatasync(2) skips
// metadata (the modification time) that is not needed to read the data
// back, and here none is. On this project's disk (ext4 on virtio, write-back
// cache) that saves about a third of the append's cost (results/serve).
const logChunk = 64 << 10

// chunkEnd is the preallocated end for a log whose records end at n: the
// next chunk boundary past n.
func chunkEnd(n, chunk int64) int64 { return (n/chunk + 1) * chunk }

// appendObserved appends one record and, unless noSync, makes it durable
// before returning: the record goes into the log's preallocated zeros and is
// fdatasync'd. When it does not fit, the log first grows by a chunk of zeros
// that is fsync'd on its own (size and data) before the record is written,
// so the space after the last record is always zeros on disk. A crash
// mid-append that loses a sector of the record leaves a complete record
// with a bad checksum, which readFrames refuses (the session is
// quarantined): a torn record is only one the file's end cuts short.
// Records are written one at a time (the session's lock is held), each
// after the previous one is on disk. On failure the record's bytes are
// zeroed again.
func (sf *sessionFiles) appendObserved(o *statepb.Observed) error {
	payload, err := proto.Marshal(&statepb.Record{Kind: &statepb.Record_Observed{Observed: o}})
	if err != nil {
		return fmt.Errorf("encode record: %w", err)
	}
	buf := appendFrame(make([]byte, 0, frameHeaderLen+len(payload)), payload)
	path := filepath.Join(sf.dir, logName)
	end := sf.size + int64(len(buf))
	if end > sf.alloc {
		alloc := chunkEnd(end, sf.chunk)
		if _, err := sf.f.WriteAt(make([]byte, alloc-sf.alloc), sf.alloc); err != nil {
			_ = sf.f.Truncate(sf.alloc)
			return fmt.Errorf("%s: preallocate: %w", path, err)
		}
		if !sf.noSync {
			if err := sf.f.Sync(); err != nil {
				_ = sf.f.Truncate(sf.alloc)
				return fmt.Errorf("%s: fsync: %w", path, err)
			}
		}
		sf.alloc = alloc
	}
	if _, err := sf.f.WriteAt(buf, sf.size); err != nil {
		_, _ = sf.f.WriteAt(make([]byte, len(buf)), sf.size)
		return fmt.Errorf("%s: append: %w", path, err)
	}
	if !sf.noSync {
		if err := syscall.Fdatasync(int(sf.f.Fd())); err != nil {
			_, _ = sf.f.WriteAt(make([]byte, len(buf)), sf.size)
			return fmt.Errorf("%s: fdatasync: %w", path, err)
		}
	}
	sf.offsets = append(sf.offsets, sf.size)
	sf.size = end
	return nil
}

// readObserved reads the records of iterations [from, from+n).
func (sf *sessionFiles) readObserved(from, n int) ([]*statepb.Observed, error) {
	path := filepath.Join(sf.dir, logName)
	out := make([]*statepb.Observed, 0, n)
	var h [frameHeaderLen]byte
	for i := from; i < from+n && i < len(sf.offsets); i++ {
		off := sf.offsets[i]
		if _, err := sf.f.ReadAt(h[:], off); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		payload := make([]byte, binary.LittleEndian.Uint32(h[:4]))
		if _, err := sf.f.ReadAt(payload, off+frameHeaderLen); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		var r statepb.Record
		if err := proto.Unmarshal(payload, &r); err != nil || r.GetObserved() == nil {
			return nil, fmt.Errorf("%s: record at byte %d is not an observation", path, off)
		}
		out = append(out, r.GetObserved())
	}
	return out, nil
}

// writeSnapshot replaces the session's snapshot atomically.
func (sf *sessionFiles) writeSnapshot(s *statepb.Snapshot) error {
	payload, err := proto.Marshal(s)
	if err != nil {
		return fmt.Errorf("encode snapshot: %w", err)
	}
	// Always durable, also with UnsafeNoSync: the log holds every
	// observation either way, and snapshots are written in the background.
	return safefile.WritePrivate(filepath.Join(sf.dir, snapName), appendFrame(fileHeader(snapMagic, snapVersion), payload))
}

func (sf *sessionFiles) close() error {
	if sf == nil || sf.f == nil {
		return nil
	}
	err := sf.f.Close()
	sf.f = nil
	return err
}

// removeSessionDir renames a session folder away, then removes it.
func removeSessionDir(root, id string, noSync bool) error {
	dir := filepath.Join(root, id)
	gone := filepath.Join(root, delPrefix+id+"-"+randomSuffix())
	if err := os.Rename(dir, gone); err != nil {
		return fmt.Errorf("delete session %s: %w", id, err)
	}
	if !noSync {
		if err := safefile.SyncDir(root); err != nil {
			return err
		}
	}
	return os.RemoveAll(gone)
}

// cleanLeftovers removes folders of interrupted creations and deletions.
func cleanLeftovers(root string, log zerolog.Logger) error {
	ents, err := os.ReadDir(root)
	if err != nil {
		return fmt.Errorf("%s: %w", root, err)
	}
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), newPrefix) || strings.HasPrefix(e.Name(), delPrefix) {
			p := filepath.Join(root, e.Name())
			log.Info().Str("dir", p).Msg("removing the leftover of an interrupted session creation or deletion")
			if err := os.RemoveAll(p); err != nil {
				return fmt.Errorf("%s: %w", p, err)
			}
		}
	}
	return nil
}
