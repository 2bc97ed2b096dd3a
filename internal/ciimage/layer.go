package ciimage

import (
	"archive/tar"
	"bytes"
	"fmt"
	"io"
	"path"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
)

type readCloser = io.ReadCloser

type nopCloser struct{ *bytes.Reader }

func (nopCloser) Close() error { return nil }

// layer writes one tar layer in memory. Directories are written once, the
// first time they are named (their parents first); the first error sticks
// and is returned by close.
type layer struct {
	buf     bytes.Buffer
	tw      *tar.Writer
	mtime   time.Time
	written map[string]bool
	err     error
}

func newLayer(mtime time.Time) *layer {
	l := &layer{mtime: mtime.UTC(), written: map[string]bool{}}
	l.tw = tar.NewWriter(&l.buf)
	return l
}

// rel turns an absolute image path into a tar member name ("usr/bin").
func rel(p string) string { return path.Clean(p)[1:] }

func (l *layer) header(h *tar.Header) {
	if l.err != nil {
		return
	}
	h.ModTime = l.mtime
	h.Format = tar.FormatPAX
	if h.Uid == 0 {
		h.Uname, h.Gname = "root", "root"
	}
	if err := l.tw.WriteHeader(h); err != nil {
		l.err = fmt.Errorf("layer entry %s: %w", h.Name, err)
	}
}

func (l *layer) dir(p string, mode int64, uid, gid int) {
	p = path.Clean(p)
	if p == "/" || l.written[p] {
		return
	}
	l.dir(path.Dir(p), 0o755, 0, 0)
	l.written[p] = true
	l.header(&tar.Header{Typeflag: tar.TypeDir, Name: rel(p) + "/", Mode: mode, Uid: uid, Gid: gid})
}

func (l *layer) file(p string, mode int64, content string) {
	l.bytes(p, mode, []byte(content))
}

func (l *layer) bytes(p string, mode int64, content []byte) {
	l.dir(path.Dir(p), 0o755, 0, 0)
	l.written[path.Clean(p)] = true
	l.header(&tar.Header{Typeflag: tar.TypeReg, Name: rel(p), Mode: mode, Size: int64(len(content))})
	if l.err == nil {
		if _, err := l.tw.Write(content); err != nil {
			l.err = fmt.Errorf("layer entry %s: %w", p, err)
		}
	}
}

func (l *layer) hostFile(p, host string, mode int64) error {
	b, err := readHost(host)
	if err != nil {
		return err
	}
	l.bytes(p, mode, b)
	return nil
}

func (l *layer) symlink(p, target string) {
	if l.written[path.Clean(p)] {
		return
	}
	l.dir(path.Dir(p), 0o755, 0, 0)
	l.written[path.Clean(p)] = true
	l.header(&tar.Header{Typeflag: tar.TypeSymlink, Name: rel(p), Linkname: target, Mode: 0o777})
}

func (l *layer) close() (v1.Layer, error) {
	if l.err != nil {
		return nil, l.err
	}
	if err := l.tw.Close(); err != nil {
		return nil, err
	}
	return layerFromBytes(l.buf.Bytes())
}
