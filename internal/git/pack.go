package git

import (
	"bytes"
	"crypto/sha1"
	"encoding/binary"
	"fmt"
	"hash/adler32"
	"hash/crc32"
	"os"
	"path/filepath"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/idxfile"
)

// objectBatch collects the new objects of one commit so they reach disk as
// a single packfile: a promotion writes a dozen small objects, and as loose
// objects each costs a temporary file, a directory and a rename (3-16 ms
// together on a busy disk), where one pack costs two files. git fast-import
// does the same.
type objectBatch struct {
	objs   []plumbing.EncodedObject
	hashes map[plumbing.Hash]bool
}

func (b *objectBatch) add(o plumbing.EncodedObject) {
	if b.hashes[o.Hash()] {
		return
	}
	b.hashes[o.Hash()] = true
	b.objs = append(b.objs, o)
}

// flushBatch writes the batch as one pack (a single object stays loose). Until it returns, none of the objects is visible,
// which is fine: nothing refers to them before the ref moves.
func (r *Repo) flushBatch(b *objectBatch) error {
	if len(b.objs) < 2 {
		for _, o := range b.objs {
			if _, err := r.repo.Storer.SetEncodedObject(o); err != nil {
				return fmt.Errorf("writing object %s: %w", o.Hash(), err)
			}
		}
		return nil
	}
	pack, idx, sum, err := encodePack(b.objs)
	if err != nil {
		return err
	}
	// The index first, then the pack, each whole by rename. go-git lists
	// packs and fails on one without its index ("packfile not found");
	// git lists indexes and ignores one without its pack. So an index
	// alone, which a kill between the two leaves, is harmless to both
	// (and Recover removes it), where a pack alone broke every later run.
	dir := filepath.Join(r.commonDir, "objects", "pack")
	name := "pack-" + sum.String()
	if err := r.writeObjectFile(dir, name+".idx", idx); err != nil {
		return err
	}
	if err := r.writeObjectFile(dir, name+".pack", pack); err != nil {
		return err
	}
	r.storage.Reindex()
	r.packWritten(idx, pack)
	return nil
}

// encodePack writes objs as a version 2 pack of whole (undeltified)
// objects and builds its index from the offsets and CRCs it wrote, rather
// than parsing the pack back.
func encodePack(objs []plumbing.EncodedObject) (pack, idx []byte, sum plumbing.Hash, err error) {
	var buf bytes.Buffer
	buf.WriteString("PACK")
	buf.Write(binary.BigEndian.AppendUint32(nil, 2))
	buf.Write(binary.BigEndian.AppendUint32(nil, uint32(len(objs))))
	iw := new(idxfile.Writer)
	for _, o := range objs {
		content, err := objectBytes(o)
		if err != nil {
			return nil, nil, plumbing.ZeroHash, fmt.Errorf("writing pack: object %s: %w", o.Hash(), err)
		}
		off := buf.Len()
		buf.Write(objectHeader(o.Type(), int64(len(content))))
		writeStoredZlib(&buf, content)
		iw.Add(o.Hash(), uint64(off), crc32.ChecksumIEEE(buf.Bytes()[off:]))
	}
	sha := sha1.Sum(buf.Bytes())
	buf.Write(sha[:])
	sum = plumbing.Hash(sha)
	if err := iw.OnFooter(sum); err != nil {
		return nil, nil, plumbing.ZeroHash, fmt.Errorf("indexing pack: %w", err)
	}
	mi, err := iw.Index()
	if err != nil {
		return nil, nil, plumbing.ZeroHash, fmt.Errorf("indexing pack: %w", err)
	}
	var out bytes.Buffer
	if _, err := idxfile.NewEncoder(&out).Encode(mi); err != nil {
		return nil, nil, plumbing.ZeroHash, fmt.Errorf("indexing pack: %w", err)
	}
	return buf.Bytes(), out.Bytes(), sum, nil
}

// writeStoredZlib writes data as a zlib stream of stored (uncompressed)
// deflate blocks, what git writes with core.compression 0. Every flate
// writer allocates over 1 MB of tables up front, a quarter of all a
// promotion allocates and, in fresh pages, 300 page faults; the objects of
// a promotion are a few KB, and git gc compresses them later anyway.
func writeStoredZlib(buf *bytes.Buffer, data []byte) {
	sum := adler32.Checksum(data)
	buf.Write([]byte{0x78, 0x01}) // deflate, 32 KB window, no dictionary, "fastest"
	for first := true; first || len(data) > 0; first = false {
		n := min(len(data), 0xffff)
		final := byte(0)
		if n == len(data) {
			final = 1
		}
		buf.WriteByte(final) // BFINAL, BTYPE 00 (stored)
		buf.Write(binary.LittleEndian.AppendUint16(nil, uint16(n)))
		buf.Write(binary.LittleEndian.AppendUint16(nil, ^uint16(n)))
		buf.Write(data[:n])
		data = data[n:]
	}
	buf.Write(binary.BigEndian.AppendUint32(nil, sum))
}

// objectHeader is a pack entry's type and size: 3 type bits and 4 size
// bits in the first byte, 7 more size bits per following byte, the high
// bit of each byte saying another follows.
func objectHeader(t plumbing.ObjectType, size int64) []byte {
	b := []byte{byte(t)<<4 | byte(size&0x0f)}
	for size >>= 4; size > 0; size >>= 7 {
		b[len(b)-1] |= 0x80
		b = append(b, byte(size&0x7f))
	}
	return b
}

func objectBytes(o plumbing.EncodedObject) ([]byte, error) {
	r, err := o.Reader()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	var b bytes.Buffer
	b.Grow(int(o.Size()) + 1) // +1: ReadFrom stops at EOF without growing
	_, err = b.ReadFrom(r)
	return b.Bytes(), err
}

// writeObjectFile writes a read-only file of the object store through a
// temporary file (git's tmp_ prefix, which gc cleans, tagged with our pid
// for Recover) and a rename.
func (r *Repo) writeObjectFile(dir, name string, data []byte) (err error) {
	final := filepath.Join(dir, name)
	if _, err := os.Stat(final); err == nil {
		return nil // same content by construction: the name is its checksum
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("writing %s: %w", name, err)
	}
	step("create", filepath.Join(dir, "tmp_pack"))
	f, err := os.CreateTemp(dir, "tmp_pack_"+tempTag()+"*")
	if err != nil {
		return fmt.Errorf("writing %s: %w", name, err)
	}
	defer func() {
		if err != nil {
			f.Close()
			step("unlink", f.Name())
			os.Remove(f.Name())
		}
	}()
	step("write", f.Name())
	if _, err = f.Write(data); err != nil {
		return fmt.Errorf("writing %s: %w", name, err)
	}
	if r.fsync {
		if err = f.Sync(); err != nil {
			return fmt.Errorf("writing %s: %w", name, err)
		}
	}
	if err = f.Chmod(0o444); err != nil {
		return fmt.Errorf("writing %s: %w", name, err)
	}
	if err = f.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", name, err)
	}
	step("rename", final)
	if err = os.Rename(f.Name(), final); err != nil {
		return fmt.Errorf("writing %s: %w", name, err)
	}
	return nil
}
