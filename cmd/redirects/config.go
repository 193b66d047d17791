package main

import (
	"cmp"
	"time"
)

// config is what configures a run besides a command's own flags: the
// database, the listeners, the log, the shared limiter and who runs it.
// The environment is read into it once, when the run starts; --db (before
// the command or after it) and the flags of serve and quickstart then set
// its fields, so that once a command has parsed its flags, its config is
// the whole of it.
type config struct {
	db    string // --db URL
	envDB string // REDIRECTS_DB, the database without --db

	// The management API that commands run against instead of a database
	// (cmd/redirects/remote.go): --api and --token, else REDIRECTS_API and
	// REDIRECTS_TOKEN, else the profile "redirects login" saved.
	api, token       string
	envAPI, envToken string
	configHome       string // XDG_CONFIG_HOME
	home             string // HOME

	addr        string // --addr, REDIRECTS_ADDR: the edge API's address
	adminAddr   string // --admin-addr, REDIRECTS_ADMIN_ADDR: /metrics
	pprof       bool   // serve --pprof: Go's profiles on the admin listener
	manageAddr  string // --manage-addr, REDIRECTS_MANAGE_ADDR
	tlsCert     string // --tls-cert, REDIRECTS_TLS_CERT
	tlsKey      string // --tls-key, REDIRECTS_TLS_KEY
	redis       string // --redis, REDIRECTS_REDIS: limits shared across nodes
	redisPrefix string // REDIRECTS_REDIS_PREFIX
	logLevel    string // --log-level, REDIRECTS_LOG_LEVEL
	logFormat   string // --log-format, REDIRECTS_LOG_FORMAT
	engine      string // --engine, REDIRECTS_ENGINE
	loginKey    string // REDIRECTS_LOGIN_KEY: the sign-in form's key, shared by management nodes
	goMemLimit  string // GOMEMLIMIT: when set, deploy keeps the Go runtime's limit instead of DeployMemoryLimit

	webhookAllowPrivate bool // --webhook-allow-private: webhooks may reach private addresses

	checkAllowPrivate bool          // serve --check-allow-private: destination checks may reach private addresses
	checkEvery        time.Duration // serve --check-destinations-every: 0 never

	user     string // USER: who runs the command, if the process's user has no name
	sudoUser string // SUDO_USER: who ran sudo

	ci bool // CI set (and not "false"): a continuous-integration job, where no one types
}

// readConfig reads the environment into a config. A variable that is set
// but empty counts as unset, so each flag's own default applies.
func readConfig(getenv func(string) string) config {
	return config{
		envDB:       getenv("REDIRECTS_DB"),
		envAPI:      getenv("REDIRECTS_API"),
		envToken:    getenv("REDIRECTS_TOKEN"),
		configHome:  getenv("XDG_CONFIG_HOME"),
		home:        getenv("HOME"),
		addr:        getenv("REDIRECTS_ADDR"),
		adminAddr:   getenv("REDIRECTS_ADMIN_ADDR"),
		manageAddr:  getenv("REDIRECTS_MANAGE_ADDR"),
		tlsCert:     getenv("REDIRECTS_TLS_CERT"),
		tlsKey:      getenv("REDIRECTS_TLS_KEY"),
		redis:       getenv("REDIRECTS_REDIS"),
		redisPrefix: getenv("REDIRECTS_REDIS_PREFIX"),
		logLevel:    getenv("REDIRECTS_LOG_LEVEL"),
		logFormat:   getenv("REDIRECTS_LOG_FORMAT"),
		engine:      getenv("REDIRECTS_ENGINE"),
		loginKey:    getenv("REDIRECTS_LOGIN_KEY"),
		goMemLimit:  getenv("GOMEMLIMIT"),
		user:        getenv("USER"),
		sudoUser:    getenv("SUDO_USER"),
		ci:          isCI(getenv("CI")),
	}
}

// isCI reports whether the CI variable says the run is a
// continuous-integration job: set, and not "false" or "0".
func isCI(v string) bool { return v != "" && v != "false" && v != "0" }

// databaseURL is the database of the run: --db, else REDIRECTS_DB, else
// DefaultDB.
func (cf *config) databaseURL() string {
	return cmp.Or(cf.db, cf.envDB, DefaultDB)
}
