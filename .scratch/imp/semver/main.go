package main
import _ "github.com/Masterminds/semver/v3"
import "os"
func main(){ os.Stdout.WriteString("hi\n") }
