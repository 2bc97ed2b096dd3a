// A tiny static program standing in for the real binaries in the layer tests.
package main

import (
	"fmt"
	"os"
)

func main() { fmt.Println("hello", os.Args[1:]) }
