package prefault

// parseRange reads the address range and permissions that begin a line of
// /proc/<pid>/maps: "7f01c000-7f020000 rw-p 00000000 00:00 0".
func parseRange(line []byte) (lo, hi uintptr, perms string, ok bool) {
	lo, rest, ok := hexPrefix(line)
	if !ok || len(rest) == 0 || rest[0] != '-' {
		return 0, 0, "", false
	}
	hi, rest, ok = hexPrefix(rest[1:])
	if !ok || hi < lo || len(rest) < 5 || rest[0] != ' ' {
		return 0, 0, "", false
	}
	return lo, hi, string(rest[1:5]), true
}

// hexPrefix parses the lower-case hexadecimal number that begins b.
func hexPrefix(b []byte) (v uintptr, rest []byte, ok bool) {
	i := 0
	for ; i < len(b); i++ {
		var d byte
		switch c := b[i]; {
		case c >= '0' && c <= '9':
			d = c - '0'
		case c >= 'a' && c <= 'f':
			d = c - 'a' + 10
		default:
			return v, b[i:], i > 0
		}
		if i >= 16 { // more digits than an address has
			return 0, nil, false
		}
		v = v<<4 | uintptr(d)
	}
	return v, nil, i > 0
}
