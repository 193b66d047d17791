package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"redirects/internal/importgen"
)

// dryRunGolden holds, per input, the SHA-256 of the dry run's report as
// rule import --from FORMAT --dry-run prints it, with --json and without
// (the project's ID written PROJECT), into a project whose only host is
// example.com, as the build before the dry run's rework printed them (main
// at 53de171, which changed four corpus files' reports on purpose; kafka's
// row changed on purpose again with the import of mod_rewrite's skips, and
// kafka's and werf.io's with queryAfterFragment: their lines to a URL with
// a fragment went from changed to as is; excalidraw's with mergeQuery: its
// line to a destination with a query went from changed to as is): the
// report must stay byte for byte what it was. An input is a file of
// bench/import-formats' generator (dryRunLines rule lines) or a real file
// of the importers' corpus (importer/testdata/corpus/FORMAT/...). A change
// of a report on purpose updates its row: run the test with
// REDIRECTS_DRYRUN_GOLDEN=print for the new rows.
type dryRunGolden struct{ input, json, text string }

// dryRunLines is how many rule lines the generated files hold: more than a
// chunk of the importer's held rules, so that reading crosses one.
const dryRunLines = 20000

var dryRunGenerated = []dryRunGolden{
	{"apache", "691b7653ec236a97a2a95b87844c756ea98175e18496578f46f6e1e3d1362921", "47fa7197f4e17bd5347719c4ec75324b1bf561bfa3bd19bbe1505e1f38c2ab06"},
	{"cloudflare", "62d5923b14882c3fc0655e0f69d6c5f22c4a5eeed903b7953bb1d8f4c7498bd6", "c00b02f5582f253d3429fa87d16ff127877882395f2a8895a9f0aba533322151"},
	{"cloudflare-pages", "65a2f766a6be24027449b4b9870b5b901edb21dc5a6ecfb1e2a5d58242f3a5fc", "2e8495f1dfaf2b58025a50e3b8e18ccb32f5428ae0a4cbf0bc3edc305b92ed8a"},
	{"csv", "4704ce0d3dc49f65064d1bac0b1d085845309d64d574ad92ea8bacb6e9375417", "b9750dfaae6feea0790d97ec40c656c4548bf466c9dfd96644b723f924c7e0f8"},
	{"haproxy", "71e405eb982e17fee8cd5370bd2d4750e65061628ff0720cfe15c532f53219d8", "7220a3ec56a280f2cf2f8135d9ead0535b379e3af6fe5676d107e6887af92c74"},
	{"haproxy-map", "2f841868bf90a68ea81beae210aeb768d8e1dd9f4ca7bf62c7fbca1b701cba3a", "d0dbb8f6b39efc75e3085759c042aad916f18def282010ac36ef7ccf65255fa6"},
	{"netlify", "703e05574f79a38bcfcf0158b2c5a85d06fa13520cd65f45aee79a1343b94871", "58dfc245efa08188631825a03d3903de1e7ff9fa82981c708acda7d90388708c"},
	{"netlify-toml", "0d4fa9a2b93c3566f5c1edda5e4aa689233a2808701f8c8fa254ae481dee6dc8", "59ebd9f0407621843669b21066f87a9cffb2398a3bf2eb132c5ea2c85178f2eb"},
	{"nginx", "1ae98560b2d8101e0e8a4626ccea9d2e4f10048af270de7c436e965e6b7f67a5", "c4c74dd7cc99a3085b7eaa2dc735458e5caa734e692ecdbb1f20be2b05e63d23"},
	{"shopify", "432d9262ba6a3bb6e20f7559ea80e09e307ce8e47024821081f7db1f0174a239", "90946565def6c4f079a269b78f5929526d230def21c906fe66f2a08b5e9d95b3"},
	{"vercel", "286305e29f8c623b8bd926705d71160284fa1ca165bb9025a7b8dbecb2b47d47", "23a6d532afdf59bc712dcb661a3dc89d85a7ddc6be13951f5d4fb1d0108022a7"},
	{"vercel-bulk", "1104ffab3a0b7d86391765c7724b71e65e023192aa2aafe038792b25dbd7c594", "5bad389773dd762905b02b3c4960bcec24df4c474d3cf082e9e04af181f29aaf"},
	{"wordpress", "56f19c10828a1b7ad1eb1374d1718bb61a57745bf6766d39f6b58a57864f851c", "6e384cc626e68ca669728f84593fd8e59742322c4dd1e555024cef31c8870843"},
}

var dryRunCorpus = []dryRunGolden{
	{"apache/airflow.apache.org.htaccess", "8bd127c1d97c0478cc559d2035bb3e7775081a09f0a3ccf2974ed0ae1394efea", "5d0619845ab152f58bf12a5cce0035c70f934e41698582475dee787b91682b9d"},
	{"apache/arrow.apache.org.htaccess", "613b706afc064f2863885e4eb9b8145ef220edfaca55445128622511228feb9a", "0f3a77bfb5807729311cdd09a21f63f95293822430a5518a1ead492380f1abcc"},
	{"apache/beam.apache.org.htaccess", "38b42f3023240b8bd90a211d512de66f3d6f8bfb1fa31119716f5302763af926", "b6f1401a32df29175fb29af0b57463d6c32576c725d8295a6fd0a292ad1b894e"},
	{"apache/flink.apache.org.htaccess", "94b88d14400a91180cfa9455c81c407cb5757c1d22ca30f08266c1c1e2236201", "e3e81a1e18a392a97395dd3d2ee35c4dadcd085719ff6711653ae0ebb47e28fb"},
	{"apache/kafka.apache.org.htaccess", "58588f2373a288aabcc53d9d7731b4755dd4e26f1044e7eedb0a3109a0064e82", "73039761235cfe4fe86184c562afdcde739fb7274bc79ed3ff94fabfb82c011f"},
	{"apache/pulsar.apache.org.htaccess", "212a837240b577ae08ee821a12dd71258f4b9dce738562e2991e7efb55536cee", "a71d0b863986137a7cfa18b856e9d5146cc3e7872c2aa199635a8b6a5bedba53"},
	{"netlify-toml/helm.sh.netlify.toml", "957f3253930f8195172f8b7a1e6068dc2e8daa01663b0317aba34ef7b057b166", "58c3bc0db12c744e2b269bd340c6edec5d5604842c736f71ef36a2dff0b4fb16"},
	{"netlify-toml/sli.dev.netlify.toml", "330d442185b2d90b941886c56831b660a090f0c0fb96b0345dcf048e66720ef8", "1d0613eec0c756a893c601c015c4091c662f8ff7ff16954b99abfbc2528c39fe"},
	{"netlify-toml/unocss.dev.netlify.toml", "9e701ad9e46b65dcc72042773e784dd05efc61321de49f0c41441d18f9303c6a", "4d4e55881e7b7f94709e58d416992b7f1c6d60d492782d4669950b24cb125c52"},
	{"netlify-toml/vueuse.org.netlify.toml", "3fada8740661da1e0537f87993a450568fcb626910cdf25a89d8f1d3f3228495", "bf6326b67ce89997d4e8c45c49e39b7c35c08003485a4342f81a55627d6ceb38"},
	{"netlify/jestjs.io_redirects", "86b848678ea90d56b397f8668dd1d913f34664a3b0f304b80221f0f10d82b814", "796596184ac83cdd3c8ca8920eaec52c44ebd489e850f7eb6c2413451c2d96d2"},
	{"netlify/preactjs.com_redirects", "3d743b6acaf6396727c249a25e52ccc674c90b5abb870dfbaf143d9507f416f3", "8f6d7dd8dfe89e3fc633e0ae88970fee8fd68bded043b9c928d6c74144a04e07"},
	{"netlify/prettier.io_redirects", "6d1e85978aff3ec3e93f9832d500977da2f2db453722c9d7088e1578229156af", "fcc37900f74aeb8210500120e7c950d8fdf2b07cc77a3bf752b5f40683b29ced"},
	{"netlify/reactnative.dev_redirects", "4304f8459e45df5cda7139f35b46482c254599a2dd7c41cd31181222a33fcc4f", "444ea6ebf3d741586995f44b66cb3820559b74830de499aa2f9b22d76ac2912c"},
	{"netlify/redux-toolkit.js.org_redirects", "9506d8a75f65fd2eca35e9ff2dafe6e27aa61ca95db34527358abccb31bf8c65", "f7c8a0fe266b4ad5417a182fdca67464eb8649520a3e4dfa107114fa2eb13361"},
	{"netlify/vite.dev_redirects", "a890827c10e932750209224582c899ae03c10ac0779f6fd66f5da373bec47174", "840a282f545432aa7b8d3e50230e0dbe5940e50246914bd1f7968fc6016b2b07"},
	{"netlify/vitepress.dev_redirects", "98d7e7aac752dab4b9e4bdc910a368fbb064a82b8b86a6b6500375008296066d", "980b7a7d7b7f17cb41924f6ff22a70b04e3f8888479fb80e66f914605c5a966f"},
	{"netlify/vitest.dev_redirects", "65bf2a0bf36f320163b86ab38a9ef98a5739346930a54775f34d1a5294926724", "b201dfc74657268a27ae3aa5a91fd3098dc9f33eb7125dd1ef01f90879911b82"},
	{"netlify/vuejs.org_redirects", "150d674559f525857af76c926d8cea05718ebc9e8a72999d36786dd017cf3cd6", "0de564dda9eb3c5cde1fd1a5c786e6de39db2acfc5c37164aebba0ac63c07bca"},
	{"netlify/yarnpkg.com_redirects", "0a992f60d74e6d8b1930698952372c0382b64e18813853cef078648e99adf018", "ef216922892f8d69d0d71236e2ad41aad115c54bfa746448b2cec08b8935b514"},
	{"nginx/h5bp.example.com.conf", "b62c47f9e26fe905918665b229a21865a8a69b2383f12fce1b9e7562fb434032", "033cff10d8770344ecb7b5d0c500fecdbee1d5756969977ceab26a94a9c3ccce"},
	{"nginx/jitsi-meet.example.conf", "ebba778e22d5a53a52eccfdd919c02f07ce9dadba795518f2823638566cb6478", "56acef0107e28738f67c1bc9801457a53cea030220c515643883b1171a683ce9"},
	{"nginx/mastodon.example.conf", "bdcba94d36a58d332707272d7ac6d067186e4b5d481394ce91855e0f0b8f67e2", "540e4df7cffeddbfaa55cf8382077199510fd344434d1f475c86fbeaf06e6f44"},
	{"nginx/werf.io.rewrites.conf", "2908bd2eba3a4f02cc0951189b45fb24121c1f73df43bdd4d20e6f879e9b1179", "52c6738ffc9b475436f1da490880f6ac34eb6533da15c1b4c9ca6f3c7e9953ee"},
	{"vercel/excalidraw.vercel.json", "1634c21644561e3815deeaa06675ebe110b9efbfcb5d4f79dbebb5c511baf5dc", "5d8945077d08a7aeb99e8a42b36b0fdf9aca40d1c1b1a84fc1dccb9a7f5ab40f"},
	{"vercel/ionicframework.com-docs.vercel.json", "3fe35e3d246cfb5212a34c1f5af54c238c9dcd076524bbde817b96e82c984e28", "298e751cf94c161341091af1a45321449d34de6cfddd5bbc0aa921554c36be73"},
	{"vercel/next-auth.docs.vercel.json", "69f2135a3b1fd7411c6ad291fdbc2661e776710b0621357ea37369907d819714", "4c3c7f85042f88f2f18e816b61b96840f1bc8ed1734519bcc2ab4a8cb0c86760"},
	{"vercel/pnpm.io.vercel.json", "a57f1bb39c3e26e056106fae915b8d89b513186b83d6f8e05d423d806a76849c", "90abc655b20f9023831db072c166d443bee753bf45fb1d51a25ced8e4e2e590e"},
	{"vercel/react.dev.vercel.json", "60ff3130ae429dc019db7fff8d5669fc35e6079f225f76ff0cbb6f8945454ad6", "8c0c30f65602961492757f12fa947770f2033fc1429b029dcb0eead887ecf536"},
	{"vercel/trpc.io.vercel.json", "55dc853839369d10e24eaa2f892355b98bfe0b2dedb186287935292729bed15b", "e59b41574ca2e59e6663c73c1b378c8da32ab161c7a800890c8fdddc8b563646"},
}

// TestDryRunReportUnchanged: the dry run's report, JSON and text, of every
// generated format and every corpus file is byte for byte the one recorded.
func TestDryRunReportUnchanged(t *testing.T) {
	formats := importgen.Formats()
	if len(formats) != len(dryRunGenerated) {
		t.Errorf("the generator writes %d formats, the table holds %d: add the new ones", len(formats), len(dryRunGenerated))
	}
	dir := t.TempDir()
	db := "sqlite:" + filepath.Join(dir, "r.db")
	org, _ := runCLI(t, db, 0, "org", "create", "--name", "Acme", "--tier", "enterprise")
	project, _ := runCLI(t, db, 0, "project", "create", "--org", strings.TrimSpace(org), "--name", "www", "--host", "example.com")
	project = strings.TrimSpace(project)
	print := os.Getenv("REDIRECTS_DRYRUN_GOLDEN") == "print"
	check := func(t *testing.T, g dryRunGolden, format, file string) {
		t.Helper()
		var sums [2]string
		for i, args := range [][]string{{"--json"}, nil} {
			args = append([]string{"rule", "import", "--project", project, "--from", format, "--dry-run"}, args...)
			out, _ := runCLI(t, db, 0, append(args, file)...)
			sum := sha256.Sum256([]byte(strings.ReplaceAll(out, project, "PROJECT")))
			sums[i] = hex.EncodeToString(sum[:])
		}
		if print {
			t.Logf("{%q, %q, %q},", g.input, sums[0], sums[1])
			return
		}
		if sums[0] != g.json {
			t.Errorf("%s: the --json report changed: sha256 %s, recorded %s", g.input, sums[0], g.json)
		}
		if sums[1] != g.text {
			t.Errorf("%s: the text report changed: sha256 %s, recorded %s", g.input, sums[1], g.text)
		}
	}
	for _, g := range dryRunGenerated {
		var buf bytes.Buffer
		if err := importgen.Write(&buf, g.input, dryRunLines); err != nil {
			t.Fatal(err)
		}
		file := filepath.Join(dir, "in."+g.input)
		if err := os.WriteFile(file, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Run(g.input, func(t *testing.T) { check(t, g, g.input, file) })
	}
	for _, g := range dryRunCorpus {
		format, _, _ := strings.Cut(g.input, "/")
		t.Run(g.input, func(t *testing.T) {
			check(t, g, format, filepath.Join("..", "..", "importer", "testdata", "corpus", g.input))
		})
	}
}
