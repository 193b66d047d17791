package importer

import (
	"os"
	"testing"
)

func TestCorpusShow(t *testing.T) {
	name := os.Getenv("CORPUS_FILE")
	if name == "" {
		t.Skip()
	}
	for _, f := range loadCorpus(t) {
		if f.folder+"/"+f.name != name {
			continue
		}
		res, _ := importCorpusFile(t, f)
		t.Logf("asis %v suggest %+v\n%s", res.AsIsLines, res.Suggest, outcomesText(res))
	}
}
