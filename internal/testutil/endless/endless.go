// Package endless holds programs that never end on their own, for the
// tests that interrupt an engine at work.
package endless

// JsonnetLoop runs for hours and grows neither its stack nor its heap, so
// only an interrupt or the evaluator's deadline ends it. A tailstrict
// recursion (local f(x) = f(x + 1) tailstrict) is no such loop: it still
// grows the Go stack, and a fast machine spends the evaluator's 256 MiB
// stack in under a second, before the interrupt comes.
const JsonnetLoop = `std.foldl(function(a, i) std.foldl(function(b, j) std.md5(b), std.range(1, 100000), a), std.range(1, 100000), "x")`
