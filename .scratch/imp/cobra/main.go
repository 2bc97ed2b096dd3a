package main
import _ "github.com/spf13/cobra"
import "os"
func main(){ os.Stdout.WriteString("hi\n") }
