package population

import (
	"encoding/json"
	"io"

	"github.com/hyperctl/hyperctl/experiment/matrix"
	"github.com/hyperctl/hyperctl/internal/ground/termtext"
)

// WriteFolderStatus writes matrix.Folders's runs of root to w as a table
// (folded to w's width) or JSON, with pop (a population folder's status;
// nil for none) in the JSON.
func WriteFolderStatus(w io.Writer, root string, runs []matrix.FolderRun, pop *Status, asJSON bool) error {
	counts := map[string]int{}
	for _, r := range runs {
		counts[r.State]++
	}
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(struct {
			Runs       []matrix.FolderRun `json:"runs"`
			Counts     map[string]int     `json:"counts"`
			Population *Status            `json:"population,omitempty"`
		}{runs, counts, pop})
	}
	return matrix.WriteFolderTable(w, root, runs, termtext.Width(w))
}
