// Copyright 2026 The cloud-provider-dvp Authors
// SPDX-License-Identifier: Apache-2.0

// Command gojq applies one jq filter to one JSON document the way shell-operator evaluates a binding's
// jqFilter (github.com/itchyny/gojq): `gojq '<filter>' < object.json` prints each result as one JSON line.
// Hook tests feed full Kubernetes objects through it so their snapshots carry real filterResults.
package main

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/itchyny/gojq"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: gojq '<filter>' < input.json")
		os.Exit(2)
	}
	query, err := gojq.Parse(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "gojq: parse:", err)
		os.Exit(3)
	}
	code, err := gojq.Compile(query)
	if err != nil {
		fmt.Fprintln(os.Stderr, "gojq: compile:", err)
		os.Exit(3)
	}
	var input any
	if err := json.NewDecoder(os.Stdin).Decode(&input); err != nil {
		fmt.Fprintln(os.Stderr, "gojq: input:", err)
		os.Exit(2)
	}
	out := json.NewEncoder(os.Stdout)
	iter := code.Run(input)
	for {
		v, ok := iter.Next()
		if !ok {
			break
		}
		if err, isErr := v.(error); isErr {
			fmt.Fprintln(os.Stderr, "gojq: run:", err)
			os.Exit(5)
		}
		if err := out.Encode(v); err != nil {
			fmt.Fprintln(os.Stderr, "gojq: output:", err)
			os.Exit(5)
		}
	}
}
