package main
import _ "github.com/go-git/go-git/v5/plumbing/object"
import "os"
func main(){ os.Stdout.WriteString("hi\n") }
