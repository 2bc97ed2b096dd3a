package prefault

import "testing"

func TestParseRange(t *testing.T) {
	tests := []struct {
		line   string
		lo, hi uintptr
		perms  string
		ok     bool
	}{
		{"7f01c000-7f020000 rw-p 00000000 00:00 0", 0x7f01c000, 0x7f020000, "rw-p", true},
		{"00400000-00d6d000 r-xp 00000000 fe:00 11208239   /usr/bin/promote", 0x400000, 0xd6d000, "r-xp", true},
		{"ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0  [vsyscall]", 0xffffffffff600000, 0xffffffffff601000, "--xp", true},
		{"7f01c000-7f020000", 0, 0, "", false},            // no permissions
		{"7f01c000-7f020000 rw", 0, 0, "", false},         // short permissions
		{"7f020000-7f01c000 rw-p 0 0 0", 0, 0, "", false}, // end before start
		{"7F01C000-7F020000 rw-p 0 0 0", 0, 0, "", false}, // the kernel writes lower case
		{"-7f020000 rw-p 0 0 0", 0, 0, "", false},
		{"7f01c000 7f020000 rw-p", 0, 0, "", false},
		{"10000000000000000-10000000000000001 rw-p", 0, 0, "", false}, // wider than an address
		{"", 0, 0, "", false},
	}
	for _, tt := range tests {
		lo, hi, perms, ok := parseRange([]byte(tt.line))
		if lo != tt.lo || hi != tt.hi || perms != tt.perms || ok != tt.ok {
			t.Errorf("parseRange(%q) = %#x, %#x, %q, %v; want %#x, %#x, %q, %v",
				tt.line, lo, hi, perms, ok, tt.lo, tt.hi, tt.perms, tt.ok)
		}
	}
}

// FuzzParseRange: any line is parsed without panicking, and a range it
// accepts is well formed.
func FuzzParseRange(f *testing.F) {
	f.Add([]byte("7f01c000-7f020000 rw-p 00000000 00:00 0"))
	f.Add([]byte("00400000-00d6d000 r-xp 00000000 fe:00 11208239 /bin/x"))
	f.Add([]byte("ffffffffffffffff-ffffffffffffffff rw-p"))
	f.Fuzz(func(t *testing.T, line []byte) {
		lo, hi, perms, ok := parseRange(line)
		if !ok {
			return
		}
		if hi < lo || len(perms) != 4 {
			t.Fatalf("parseRange(%q) = %#x, %#x, %q: accepted a malformed range", line, lo, hi, perms)
		}
	})
}
