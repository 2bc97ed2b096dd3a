package main
import _ "github.com/Masterminds/sprig/v3"
import "os"
func main(){ os.Stdout.WriteString("hi\n") }
