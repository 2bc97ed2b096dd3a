package ciimage

import (
	"debug/elf"
	"fmt"
)

var elfMachine = map[string]elf.Machine{"amd64": elf.EM_X86_64, "arm64": elf.EM_AARCH64}

// checkStatic refuses an executable that would not start in the image: one
// built for another architecture, or one that needs a dynamic loader (the
// image has no libc). A cgo build of promote fails here, not in a CI job.
func checkStatic(p, arch string) error {
	f, err := elf.Open(p)
	if err != nil {
		return fmt.Errorf("%s: not a linux executable: %w", p, err)
	}
	defer f.Close()
	if want, ok := elfMachine[arch]; !ok || f.Machine != want {
		return fmt.Errorf("%s: built for %s, the image is linux/%s", p, f.Machine, arch)
	}
	for _, prog := range f.Progs {
		if prog.Type == elf.PT_INTERP {
			return fmt.Errorf("%s: dynamically linked (build it with CGO_ENABLED=0)", p)
		}
	}
	return nil
}
