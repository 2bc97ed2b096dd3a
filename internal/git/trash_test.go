package git

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
)

// trashEntries lists the repository's trash: name -> content.
func trashEntries(t *testing.T, dir string) map[string]string {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(dir, ".git", trashName))
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, ".git", trashName, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = string(b)
	}
	return out
}

// A move leaves the old contents of the files it replaced, and the old
// index, in the trash under this run's tag, and nothing else behind: no
// temporary file, no lock, a clean status.
func TestMoveLeavesOldContentsInTheTrash(t *testing.T) {
	dir := newRepo(t)
	r := openRepo(t, dir)
	head := revParse(t, dir, "HEAD")
	oldScript, _ := os.ReadFile(filepath.Join(dir, "scripts/deploy.sh"))
	oldIndex, _ := os.ReadFile(filepath.Join(dir, ".git", "index"))
	files := map[string]string{"scripts/deploy.sh": "#!/bin/sh\necho v5\n"}
	next := commitFiles(t, r, head, files, "promote")
	if err := r.Move(Move{From: head, To: next}); err != nil {
		t.Fatal(err)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	got := trashEntries(t, dir)
	var names, contents []string
	for name, c := range got {
		names, contents = append(names, name), append(contents, c)
	}
	slices.Sort(names)
	if want := []string{tempTag() + "1", tempTag() + "2"}; !slices.Equal(names, want) {
		t.Fatalf("trash holds %v, want %v", names, want)
	}
	if !slices.Contains(contents, string(oldScript)) || !slices.Contains(contents, string(oldIndex)) {
		t.Errorf("trash does not hold the old deploy.sh and the old index")
	}
	if left := tempsUnder(t, dir); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
	if _, err := os.Stat(filepath.Join(dir, ".git", "index.lock")); !os.IsNotExist(err) {
		t.Errorf("index.lock: %v, want none", err)
	}
	if st := run(t, dir, "status", "--porcelain", "--untracked-files=all"); st != "" {
		t.Errorf("status not clean:\n%s", st)
	}
}

// Recover empties what ended runs left in the trash, in the background,
// done by Close; entries of this run and of live ones, and files that are
// not the trash's, stay.
func TestRecoverEmptiesEndedRunsTrash(t *testing.T) {
	dir := newRepo(t)
	live := exec.Command("sleep", "30")
	if err := live.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { live.Process.Kill(); live.Wait() }()
	dead := "gp" + strconv.Itoa(deadPID(t)) + "_"
	planted := map[string]bool{ // name -> kept
		dead + "1": false, dead + "2": false,
		tempTag() + "1": true,
		"gp" + strconv.Itoa(live.Process.Pid) + "_1": true,
		"notes.txt": true, "gpx_1": true,
	}
	trashDir := filepath.Join(dir, ".git", trashName)
	if err := os.Mkdir(trashDir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name := range planted {
		if err := os.WriteFile(filepath.Join(trashDir, name), []byte("old\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r := openRepo(t, dir)
	if _, err := r.Recover(); err != nil {
		t.Fatal(err)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	got := trashEntries(t, dir)
	for name, kept := range planted {
		if _, ok := got[name]; ok != kept {
			t.Errorf("%s in the trash: %v, want %v", name, ok, kept)
		}
	}
}

// Where the trash cannot be made (here a file has its name; elsewhere the
// git directory on another file system), the old contents are deleted as
// before, and the move succeeds.
func TestMoveDeletesWhenTheTrashCannotBeMade(t *testing.T) {
	dir := newRepo(t)
	blocker := filepath.Join(dir, ".git", trashName)
	if err := os.WriteFile(blocker, []byte("not a directory\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := openRepo(t, dir)
	defer r.Close()
	head := revParse(t, dir, "HEAD")
	next := commitFiles(t, r, head, map[string]string{"scripts/deploy.sh": "#!/bin/sh\necho v6\n"}, "promote")
	if err := r.Move(Move{From: head, To: next}); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "scripts/deploy.sh")); string(got) != "#!/bin/sh\necho v6\n" {
		t.Errorf("deploy.sh = %q", got)
	}
	if left := tempsUnder(t, dir); len(left) > 0 {
		t.Errorf("old contents left: %v", left)
	}
	if _, err := os.Stat(filepath.Join(dir, ".git", "index.lock")); !os.IsNotExist(err) {
		t.Errorf("index.lock: %v, want none", err)
	}
	if b, _ := os.ReadFile(blocker); string(b) != "not a directory\n" {
		t.Errorf("the file in the trash's place changed: %q", b)
	}
	if st := run(t, dir, "status", "--porcelain", "--untracked-files=all"); st != "" {
		t.Errorf("status not clean:\n%s", st)
	}
}
