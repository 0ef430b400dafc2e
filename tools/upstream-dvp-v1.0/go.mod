// DVP's API module at v1.0.0, data only (one go.mod holds one version of a module; tools/upstream pins v1.8.0):
// tools/fetch-upstream copies its condition constants and phase types into .cache/upstream/dvp/api-v1.0.0/ for
// the older spelling of DVP's reasons. Nothing imports it, so `go mod tidy` would drop it; re-add with
// `go get github.com/deckhouse/virtualization/api@v1.0.0` after a tidy.
module cloud-provider-dvp/tools/upstream-dvp-v1.0

go 1.26.0

require github.com/deckhouse/virtualization/api v1.0.0 // indirect
