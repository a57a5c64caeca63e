//! agentctx's schema in the store, versioned. Each migration runs once, in
//! order, in one transaction that holds an advisory lock: machines that
//! migrate at the same moment wait for each other, and the second finds
//! nothing left to do.

use super::PgError;

/// The advisory lock every migration takes (`hashtext` of a fixed name).
const LOCK: &str = "SELECT pg_advisory_xact_lock(hashtext('agentctx.agentmem.migrate'))";

/// The migrations, in order: (version, what it does, SQL).
pub const MIGRATIONS: &[(i32, &str, &str)] = &[
    (
        1,
        "captures with full-text search",
        "CREATE TABLE agentmem_captures (
        id bigserial PRIMARY KEY,
        capture_key text NOT NULL UNIQUE,
        name text NOT NULL,
        short text NOT NULL,
        time text COLLATE \"C\" NOT NULL,
        category text NOT NULL,
        agent text NOT NULL,
        source text NOT NULL,
        session text NOT NULL,
        project text NOT NULL,
        completion text NOT NULL,
        description text NOT NULL,
        remote text NOT NULL,
        root_commit text NOT NULL,
        pname text NOT NULL,
        top text NOT NULL,
        package text NOT NULL,
        body text NOT NULL,
        document text NOT NULL,
        search tsvector NOT NULL,
        received_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX agentmem_captures_search ON agentmem_captures USING gin (search);
    CREATE INDEX agentmem_captures_time ON agentmem_captures (time DESC, name DESC);
    CREATE INDEX agentmem_captures_remote ON agentmem_captures (remote);
    CREATE INDEX agentmem_captures_root_commit ON agentmem_captures (root_commit);
    CREATE INDEX agentmem_captures_pname ON agentmem_captures (pname);
    CREATE INDEX agentmem_captures_short ON agentmem_captures (short);",
    ),
    (
        2,
        "the capture's date for recall's ranking; indexes for folder scopes, show by prefix and recall's days; counts per project",
        // Recall ranks by age in days. A time that does not start with a
        // date (a hand-edited file) has none, and must not fail the insert
        // nor the ranking: the function says NULL instead of raising.
        "CREATE FUNCTION agentmem_day(t text) RETURNS date
        LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
        BEGIN
            IF t ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}' THEN
                RETURN substr(t, 1, 10)::date;
            END IF;
            RETURN NULL;
        EXCEPTION WHEN others THEN
            RETURN NULL;
        END $$;
    ALTER TABLE agentmem_captures
        ADD COLUMN day date GENERATED ALWAYS AS (agentmem_day(time)) STORED;
    -- Folder scopes are byte ranges of `top` (store.rs), show takes a
    -- prefix of `name`: both served by an index at a million rows.
    ALTER TABLE agentmem_captures ALTER COLUMN top TYPE text COLLATE \"C\";
    CREATE INDEX agentmem_captures_top ON agentmem_captures (top);
    CREATE INDEX agentmem_captures_name ON agentmem_captures (name text_pattern_ops);
    CREATE INDEX agentmem_captures_day ON agentmem_captures (day);
    -- Captures per project, kind and day, kept by a trigger: recall's
    -- total (captures=\"N\") is a sum over a project's few hundred rows
    -- here, not a visit to each of its captures. Columns are named as in
    -- agentmem_captures, so the same filter clause applies; `time` is the
    -- day. The trigger runs as the schema's owner: writers need no rights
    -- on this table, readers are given what row-level security allows
    -- (docs/examples/agentmem-rls.sql).
    CREATE TABLE agentmem_counts (
        remote text NOT NULL,
        root_commit text NOT NULL,
        pname text NOT NULL,
        top text COLLATE \"C\" NOT NULL,
        package text NOT NULL,
        category text NOT NULL,
        time text COLLATE \"C\" NOT NULL,
        n bigint NOT NULL,
        PRIMARY KEY (remote, root_commit, pname, top, package, category, time)
    );
    CREATE INDEX agentmem_counts_root_commit ON agentmem_counts (root_commit);
    CREATE INDEX agentmem_counts_pname ON agentmem_counts (pname);
    CREATE INDEX agentmem_counts_top ON agentmem_counts (top);
    INSERT INTO agentmem_counts
        SELECT remote, root_commit, pname, top, package, category, substr(time, 1, 10), count(*)
        FROM agentmem_captures GROUP BY 1, 2, 3, 4, 5, 6, 7;
    CREATE FUNCTION agentmem_count() RETURNS trigger
    LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT AS $$
    BEGIN
        IF TG_OP = 'INSERT' THEN
            INSERT INTO agentmem_counts VALUES (NEW.remote, NEW.root_commit, NEW.pname, NEW.top,
                NEW.package, NEW.category, substr(NEW.time, 1, 10), 1)
            ON CONFLICT (remote, root_commit, pname, top, package, category, time)
            DO UPDATE SET n = agentmem_counts.n + 1;
        ELSE
            UPDATE agentmem_counts SET n = n - 1
            WHERE (remote, root_commit, pname, top, package, category, time)
                = (OLD.remote, OLD.root_commit, OLD.pname, OLD.top, OLD.package, OLD.category,
                   substr(OLD.time, 1, 10));
        END IF;
        RETURN NULL;
    END $$;
    CREATE TRIGGER agentmem_count AFTER INSERT OR DELETE ON agentmem_captures
        FOR EACH ROW EXECUTE FUNCTION agentmem_count();",
    ),
];

/// The RUM index (extension `rum`, Debian's `postgresql-<major>-rum`):
/// it keeps word positions, so a phrase is checked and ranked in the index
/// instead of on each candidate row's vector (`read.rs` says when it is
/// used). Not a versioned migration: a server
/// that gains the extension later gets the index at the next `mem
/// migrate`; one whose user may not create the extension keeps GIN.
const RUM: &str = "DO $$
BEGIN
    IF to_regclass('agentmem_captures_rum') IS NULL
        AND EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'rum') THEN
        BEGIN
            CREATE EXTENSION IF NOT EXISTS rum;
            CREATE INDEX agentmem_captures_rum ON agentmem_captures
                USING rum (search rum_tsvector_ops);
        EXCEPTION WHEN insufficient_privilege THEN
            RAISE NOTICE 'agentctx: no RUM index: %', SQLERRM;
        END;
    END IF;
END $$";

/// Which index search checks phrases with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SearchIndex {
    /// RUM: phrases are checked and ranked on the positions it keeps.
    Rum,
    /// GIN only: a phrase is checked on each candidate row.
    Gin,
}

/// Which index search uses in this database.
///
/// # Errors
/// A statement fails.
pub fn search_index(client: &mut postgres::Client, target: &str) -> Result<SearchIndex, PgError> {
    let rum: bool = client
        .query_one(
            "SELECT to_regclass('agentmem_captures_rum') IS NOT NULL",
            &[],
        )
        .map_err(pg(target))?
        .get(0);
    Ok(if rum {
        SearchIndex::Rum
    } else {
        SearchIndex::Gin
    })
}

/// The schema version this build reads and writes.
pub const SCHEMA_VERSION: i32 = MIGRATIONS[MIGRATIONS.len() - 1].0;

fn pg(target: &str) -> impl Fn(postgres::Error) -> PgError + use<> {
    let target = target.to_owned();
    move |source| PgError::Postgres {
        target: target.clone(),
        source,
    }
}

/// The database's schema version (0: none yet).
///
/// # Errors
/// A statement fails.
pub fn schema_version(client: &mut postgres::Client, target: &str) -> Result<i32, PgError> {
    let err = pg(target);
    let exists: bool = client
        .query_one("SELECT to_regclass('agentmem_migrations') IS NOT NULL", &[])
        .map_err(&err)?
        .get(0);
    if !exists {
        return Ok(0);
    }
    let row = client
        .query_one(
            "SELECT coalesce(max(version), 0) FROM agentmem_migrations",
            &[],
        )
        .map_err(&err)?;
    Ok(row.get(0))
}

/// Brings the database to [`SCHEMA_VERSION`], and builds the RUM index
/// when the server offers the extension; returns the versions it applied
/// (none when another machine did).
///
/// # Errors
/// A statement fails (the transaction is rolled back), or the database is
/// newer than this build.
pub fn migrate(client: &mut postgres::Client, target: &str) -> Result<Vec<i32>, PgError> {
    let err = pg(target);
    let mut tx = client.transaction().map_err(&err)?;
    tx.batch_execute(LOCK).map_err(&err)?;
    tx.batch_execute(
        "CREATE TABLE IF NOT EXISTS agentmem_migrations (
            version integer PRIMARY KEY,
            description text NOT NULL,
            applied_at timestamptz NOT NULL DEFAULT now()
        )",
    )
    .map_err(&err)?;
    let current: i32 = tx
        .query_one(
            "SELECT coalesce(max(version), 0) FROM agentmem_migrations",
            &[],
        )
        .map_err(&err)?
        .get(0);
    if current > SCHEMA_VERSION {
        return Err(PgError::Newer {
            found: current,
            known: SCHEMA_VERSION,
        });
    }
    let mut applied = Vec::new();
    for (version, description, sql) in MIGRATIONS.iter().filter(|(v, ..)| *v > current) {
        tx.batch_execute(sql).map_err(&err)?;
        tx.execute(
            "INSERT INTO agentmem_migrations (version, description) VALUES ($1, $2)",
            &[version, description],
        )
        .map_err(&err)?;
        applied.push(*version);
    }
    tx.batch_execute(RUM).map_err(&err)?;
    tx.commit().map_err(&err)?;
    Ok(applied)
}

/// Fails unless the database is at [`SCHEMA_VERSION`].
///
/// # Errors
/// [`PgError::NotMigrated`], [`PgError::Newer`], or a failed statement.
pub fn require_current(client: &mut postgres::Client, target: &str) -> Result<(), PgError> {
    match schema_version(client, target)? {
        v if v == SCHEMA_VERSION => Ok(()),
        v if v > SCHEMA_VERSION => Err(PgError::Newer {
            found: v,
            known: SCHEMA_VERSION,
        }),
        v => Err(PgError::NotMigrated {
            found: v,
            needed: SCHEMA_VERSION,
        }),
    }
}
