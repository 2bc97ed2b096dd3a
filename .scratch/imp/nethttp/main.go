package main
import _ "net/http"
import "os"
func main(){ os.Stdout.WriteString("hi\n") }
