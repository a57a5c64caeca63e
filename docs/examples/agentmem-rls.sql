-- Row-level security for AgentMem's shared PostgreSQL store: each worker
-- role reads the captures of the repositories it is given, and may add
-- captures. Run as the owner after `agentctx mem migrate`; tested by
-- crates/cli/tests/pg_cli.rs (row_level_security_limits_a_worker_to_its_repositories).
CREATE TABLE IF NOT EXISTS agentmem_readers (
    role name NOT NULL,
    remote text NOT NULL,
    PRIMARY KEY (role, remote)
);
DO $$ BEGIN
    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'worker_a') THEN
        CREATE ROLE worker_a LOGIN;
    END IF;
END $$;
GRANT SELECT ON agentmem_migrations, agentmem_readers, agentmem_counts TO worker_a;
GRANT SELECT, INSERT ON agentmem_captures TO worker_a;
GRANT USAGE ON SEQUENCE agentmem_captures_id_seq TO worker_a;
ALTER TABLE agentmem_captures ENABLE ROW LEVEL SECURITY;
DROP POLICY IF EXISTS agentmem_read ON agentmem_captures;
CREATE POLICY agentmem_read ON agentmem_captures FOR SELECT
    USING (remote IN (SELECT r.remote FROM agentmem_readers r WHERE r.role = current_user));
DROP POLICY IF EXISTS agentmem_add ON agentmem_captures;
CREATE POLICY agentmem_add ON agentmem_captures FOR INSERT WITH CHECK (true);
-- The per-project counts recall sums (kept by a trigger that runs as the
-- owner): a worker sees its repositories' counts only.
ALTER TABLE agentmem_counts ENABLE ROW LEVEL SECURITY;
DROP POLICY IF EXISTS agentmem_read_counts ON agentmem_counts;
CREATE POLICY agentmem_read_counts ON agentmem_counts FOR SELECT
    USING (remote IN (SELECT r.remote FROM agentmem_readers r WHERE r.role = current_user));
