package git

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
)

// historyRepo is newRepo with a history whose files change a little each
// commit, so that packing makes delta chains.
func historyRepo(t *testing.T) string {
	t.Helper()
	dir := newRepo(t)
	var values strings.Builder
	for i := range 300 {
		fmt.Fprintf(&values, "replica-%03d: {image: registry.example.com/app, tag: v1.0.%d}\n", i, i)
	}
	for c := range 12 {
		content := strings.Replace(values.String(), fmt.Sprintf("tag: v1.0.%d}", c*20), fmt.Sprintf("tag: v2.0.%d}", c), 1)
		writeFile(t, dir, "envs/prod/values.yaml", content, 0o644)
		writeFile(t, dir, fmt.Sprintf("envs/qa/values-%d.yaml", c%3), content+fmt.Sprintf("rev: %d\n", c), 0o644)
		run(t, dir, "add", "-A")
		run(t, dir, "commit", "-q", "-m", fmt.Sprintf("change %d", c))
	}
	return dir
}

// catAll returns every object of the repository as git reads it.
func catAll(t *testing.T, dir string) map[plumbing.Hash]packedObject {
	t.Helper()
	cmd := exec.Command("git", "cat-file", "--batch-all-objects", "--batch")
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git cat-file: %v", err)
	}
	objs := map[plumbing.Hash]packedObject{}
	r := bufio.NewReader(bytes.NewReader(out))
	for {
		line, err := r.ReadString('\n')
		if err == io.EOF {
			return objs
		}
		f := strings.Fields(line)
		if err != nil || len(f) != 3 {
			t.Fatalf("git cat-file line %q: %v", line, err)
		}
		n, _ := strconv.Atoi(f[2])
		data := make([]byte, n+1) // and the newline after it
		if _, err := io.ReadFull(r, data); err != nil {
			t.Fatal(err)
		}
		typ, _ := plumbing.ParseObjectType(f[1])
		objs[plumbing.NewHash(f[0])] = packedObject{typ: typ, data: data[:n]}
	}
}

// Every object the pack reader reads equals what git reads, whatever
// the packing: offset deltas (git's default, here deep ones), base
// deltas by name, several packs, and a loose object it leaves to go-git.
func TestPackReaderEqualsGit(t *testing.T) {
	for _, tt := range []struct {
		name   string
		repack [][]string
		delta  plumbing.ObjectType // the kind of delta the packs must hold
	}{
		{"offset deltas", [][]string{{"gc", "-q", "--aggressive"}}, plumbing.OFSDeltaObject},
		{"base deltas by name", [][]string{{"-c", "repack.useDeltaBaseOffset=false", "repack", "-q", "-a", "-d", "-f"}}, plumbing.REFDeltaObject},
		{"two packs", [][]string{{"repack", "-q", "-a", "-d"}, {"commit", "-q", "--allow-empty", "-m", "later"}, {"repack", "-q", "-d"}}, plumbing.OFSDeltaObject},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := historyRepo(t)
			for _, args := range tt.repack {
				run(t, dir, args...)
			}
			writeFile(t, dir, "loose.txt", "a loose object\n", 0o644)
			run(t, dir, "add", "loose.txt") // a blob only git's objects directory holds
			want := catAll(t, dir)
			pr := openPacks(filepath.Join(dir, ".git", "objects"))
			if len(*pr.packs.Load()) == 0 {
				t.Fatal("no pack read")
			}
			packed, deltas := 0, 0
			for h, w := range want {
				got, ok, err := pr.object(h)
				if err != nil {
					t.Fatalf("%s: %v", h, err)
				}
				if !ok {
					continue
				}
				packed++
				if got.typ != w.typ || !bytes.Equal(got.data, w.data) {
					t.Errorf("%s: read %s of %d bytes, git reads %s of %d", h, got.typ, len(got.data), w.typ, len(w.data))
				}
			}
			for _, p := range *pr.packs.Load() {
				for i := range p.n {
					off, _ := p.offset(i)
					if typ, _, _, _ := p.header(off); typ == tt.delta {
						deltas++
					}
				}
			}
			if loose := plumbing.ComputeHash(plumbing.BlobObject, []byte("a loose object\n")); packed != len(want)-1 {
				t.Errorf("read %d of %d objects from packs; all but the loose %s are packed", packed, len(want), loose)
			}
			if deltas == 0 {
				t.Errorf("the packs hold no %s: the test reads nothing it means to", tt.delta)
			}
			t.Logf("%d objects, %d of them %s, in %d packs", packed, deltas, tt.delta, len(*pr.packs.Load()))
		})
	}
}

// A byte changed in a packed object's data is an error naming the object,
// never other content; the repository's other objects still read.
func TestPackReaderRefusesDamage(t *testing.T) {
	dir := historyRepo(t)
	run(t, dir, "gc", "-q")
	blob := plumbing.NewHash(run(t, dir, "rev-parse", "HEAD:envs/prod/values.yaml"))
	pr := openPacks(filepath.Join(dir, ".git", "objects"))
	p := (*pr.packs.Load())[0]
	off, ok := p.find(blob)
	if !ok {
		t.Fatal("blob not in the pack")
	}
	packPath, _ := filepath.Glob(filepath.Join(dir, ".git", "objects", "pack", "*.pack"))
	data, err := os.ReadFile(packPath[0])
	if err != nil {
		t.Fatal(err)
	}
	_, _, body, _ := p.header(off)
	data[body+8] ^= 0x40 // inside the compressed data
	os.Chmod(packPath[0], 0o644)
	if err := os.WriteFile(packPath[0], data, 0o644); err != nil {
		t.Fatal(err)
	}
	r := openRepo(t, dir)
	defer r.Close()
	head := revParse(t, dir, "HEAD")
	_, err = r.ReadFile(head, "envs/prod/values.yaml")
	if err == nil || !strings.Contains(err.Error(), blob.String()) {
		t.Errorf("reading the damaged blob: %v; want an error naming %s", err, blob)
	}
	if got, err := r.ReadFile(head, "scripts/deploy.sh"); err != nil || string(got) != "#!/bin/sh\necho deploy\n" {
		t.Errorf("an intact blob: %q, %v", got, err)
	}
}

// fuzzPack is a small real pack with deltas, and its index.
func fuzzPack(f *testing.F) (idx, pack []byte) {
	dir := f.TempDir()
	git := func(args ...string) {
		cmd := exec.Command("git", append([]string{"-c", "user.name=f", "-c", "user.email=f@e"}, args...)...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			f.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q", "-b", "main")
	for i := range 3 {
		os.WriteFile(filepath.Join(dir, "values.yaml"), []byte(strings.Repeat("replicas: 2\nimage: app\n", 20)+fmt.Sprintf("tag: v%d\n", i)), 0o644)
		git("add", "-A")
		git("commit", "-q", "-m", "x")
	}
	git("gc", "-q", "--aggressive")
	idxs, _ := filepath.Glob(filepath.Join(dir, ".git", "objects", "pack", "*.idx"))
	idx, _ = os.ReadFile(idxs[0])
	pack, _ = os.ReadFile(strings.TrimSuffix(idxs[0], ".idx") + ".pack")
	return idx, pack
}

// readAllIndexed reads every object idx names; what is read must have the
// hash asked for.
func readAllIndexed(t *testing.T, idx, data []byte) {
	p, err := newPackData(idx, data)
	if err != nil {
		return
	}
	pr := newPackReader([]*packData{p})
	const head = 8 + 256*4
	for i := range min(p.n, 64) {
		h := plumbing.Hash(idx[head+int(i)*20 : head+int(i)*20+20])
		if o, ok, err := pr.object(h); err == nil && ok && objectHash(o) != h {
			t.Fatalf("%s read as content hashing to %s", h, objectHash(o))
		}
	}
}

// FuzzPackData: any index and pack bytes are refused or read without a
// panic; what is read has the hash asked for.
func FuzzPackData(f *testing.F) {
	idx, pack := fuzzPack(f)
	f.Add(idx, pack)
	f.Fuzz(readAllIndexed)
}

// FuzzPackObjects fuzzes a real pack's objects behind its valid header,
// trailer and index, which FuzzPackData rarely gets past: object headers,
// zlib streams, delta offsets and delta instructions.
func FuzzPackObjects(f *testing.F) {
	idx, pack := fuzzPack(f)
	f.Add(pack[12 : len(pack)-20])
	f.Fuzz(func(t *testing.T, body []byte) {
		data := append(append(append([]byte{}, pack[:12]...), body...), pack[len(pack)-20:]...)
		readAllIndexed(t, idx, data)
	})
}

// A pack this process writes (a commit's objects) is read by the pack
// reader from then on, not left to go-git, which would decode every pack
// index again to find it.
func TestWrittenPackIsReadByThePackReader(t *testing.T) {
	dir := historyRepo(t)
	run(t, dir, "gc", "-q")
	r := openRepo(t, dir)
	defer r.Close()
	head := revParse(t, dir, "HEAD")
	if _, err := r.ReadFile(head, "envs/prod/values.yaml"); err != nil { // opens the reader
		t.Fatal(err)
	}
	next := commitFiles(t, r, head, map[string]string{"envs/prod/values.yaml": "a: 1\n", "envs/qa/values-0.yaml": "b: 2\n"}, "promote")
	if n := len(*r.packs().packs.Load()); n != 2 {
		t.Fatalf("the reader knows %d packs, want the clone's and the one written", n)
	}
	o, ok, err := r.packs().object(next)
	if err != nil || !ok || o.typ != plumbing.CommitObject {
		t.Fatalf("the new commit from the pack reader: %v, %v, %v", o.typ, ok, err)
	}
	if got, err := r.ReadFile(next, "envs/qa/values-0.yaml"); err != nil || string(got) != "b: 2\n" {
		t.Errorf("a new blob: %q, %v", got, err)
	}
	if got := run(t, dir, "cat-file", "-p", next.String()+":envs/prod/values.yaml"); got != "a: 1" {
		t.Errorf("git reads %q", got)
	}
}

// Offsets past 2 GiB sit in the index's table of 8-byte offsets, which
// the 4-byte entry points at with its top bit set.
func TestPackIndexLargeOffsets(t *testing.T) {
	const head = 8 + 256*4
	n := 2
	idx := make([]byte, head+n*28+8+40)
	copy(idx, []byte{0xff, 't', 'O', 'c', 0, 0, 0, 2})
	for i := 0; i < 256; i++ {
		binary.BigEndian.PutUint32(idx[8+i*4:], uint32(n))
	}
	at := head + n*24
	binary.BigEndian.PutUint32(idx[at:], 12)           // a small offset
	binary.BigEndian.PutUint32(idx[at+4:], 0x80000000) // the first large one
	binary.BigEndian.PutUint64(idx[head+n*28:], 5<<30) // 5 GiB
	if got, err := checkIndex(idx); err != nil || got != uint32(n) {
		t.Fatalf("checkIndex = %d, %v", got, err)
	}
	p := &packData{idx: idx, n: uint32(n)}
	for i, want := range []uint64{12, 5 << 30} {
		if off, ok := p.offset(uint32(i)); !ok || off != want {
			t.Errorf("offset %d = %d, %v; want %d", i, off, ok, want)
		}
	}
	binary.BigEndian.PutUint32(idx[at+4:], 0x80000001) // past the table
	if _, ok := p.offset(1); ok {
		t.Error("an offset past the large-offset table was read")
	}
}
