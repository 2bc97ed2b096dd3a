package ordercfg

import (
	"bytes"
	"fmt"

	"go.yaml.in/yaml/v3"
)

// Parse decodes the body of the ordering section, e.g.
// "manualSync: [preprod, prod]". Empty input is the zero Config.
func Parse(data []byte) (Config, error) {
	var c Config
	if len(bytes.TrimSpace(data)) == 0 {
		return c, nil
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&c); err != nil {
		return Config{}, fmt.Errorf("parsing ordering config: %s", oneLine(err))
	}
	return c, nil
}
