package main
import _ "gitlab.com/gitlab-org/api/client-go"
import "os"
func main(){ os.Stdout.WriteString("hi\n") }
