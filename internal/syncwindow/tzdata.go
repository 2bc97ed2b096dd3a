package syncwindow

// Sync windows name IANA time zones, and the CI image ships no
// /usr/share/zoneinfo (it is built from scratch): without the embedded
// database every zoned window would be "unknown time zone" there and the
// gate would refuse. It adds about 450 kB to the binaries that evaluate
// windows.
import _ "time/tzdata"
