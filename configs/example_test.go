package configs_test

import (
	"fmt"

	"github.com/bloomcrawl/bloomcrawl/configs"
)

func ExampleParse() {
	cfg, err := configs.Parse("crawl.yaml", []byte(`
seeds: [http://127.0.0.1:8080/]
scope:
  max_depth: 3
politeness:
  delay: 250ms
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	// Fields left out keep their defaults.
	fmt.Println(cfg.Seeds, cfg.Scope.MaxDepth, cfg.Politeness.Delay, cfg.Politeness.Concurrency, cfg.Store.Dir)

	// Errors name the file, the line and the field; all of them are reported.
	_, err = configs.Parse("crawl.yaml", []byte(`
seeds: [http://127.0.0.1:8080/]
scope:
  max_dept: 3
dedup:
  target_fp: 0.7
`))
	fmt.Println(err)
	// Output:
	// [http://127.0.0.1:8080/] 3 250ms 16 ./crawl.db
	// crawl.yaml:4: scope.max_dept: unknown field (did you mean max_depth?)
}

func ExampleConfig_Validate() {
	// A crawl without a config file: defaults plus command-line overrides.
	cfg := configs.Default()
	cfg.Seeds = []string{"http://127.0.0.1:8080/"}
	cfg.Store.Dir = ""
	fmt.Println(cfg.Validate())
	cfg.Store.Dir = "./crawl.db"
	fmt.Println(cfg.Validate())
	// Output:
	// configs: store.dir: must not be empty
	// <nil>
}
