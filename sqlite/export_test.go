package sqlite

// LoadMigrations gives the tests of package sqlite_test the embedded
// migrations, so the shared suite can check what the database records.
var LoadMigrations = dialect{}.Migrations
