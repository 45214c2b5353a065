import OutpostPostgres
import OutpostTestSupport
import Testing

/// `--database postgres://…`: what each part of the URL means (docs/postgres.md, "Connecting").
@Suite struct PostgresLocationTests {
    @Test func theURLsPartsAreRead() throws {
        let full = try PostgresLocation("postgres://ada:p%40ss@db.example:6543/gis?sslmode=require&application_name=outpost")
        #expect(full.username == "ada" && full.password == "p@ss" && full.host == "db.example" && full.port == 6543)
        #expect(full.database == "gis" && full.tls == .require && full.applicationName == "outpost")
        let short = try PostgresLocation("postgresql://127.0.0.1/outpost")
        #expect(short.username == "postgres" && short.password == nil && short.port == 5432 && short.tls == .prefer)
        let ipv6 = try PostgresLocation("postgres://u@[::1]:5433/d?sslmode=disable")
        #expect(ipv6.host == "::1" && ipv6.port == 5433 && ipv6.tls == .disable)
    }

    @Test func badURLsAreRefusedSayingWhyWithoutThePassword() {
        for (url, says) in [
            ("mysql://h/d", "not a postgres:// URL"), ("postgres://h", "no database"), ("postgres://h/", "no database"),
            ("postgres://u:secret@h:99999/d", "bad port"), ("postgres://h/d?sslmode=maybe", "sslmode"),
            ("postgres://h/d?timeout=3", "unknown parameter 'timeout'"), ("postgres://u:secret@/d", "no host"),
        ] {
            #expect {
                _ = try PostgresLocation(url)
            } throws: { error in
                let text = "\(error)"
                return text.contains(says) && !text.contains("secret")
            }
        }
        #expect(PostgresLocation.redacted("postgres://ada:secret@h/d") == "postgres://ada:***@h/d")
    }
}
