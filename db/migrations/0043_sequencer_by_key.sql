-- A run of the sequencer writes each event's number and each audit entry's link by its primary
-- key. One UPDATE joining the run's rows was planned against the table statistics of the
-- organization, which lag behind a growing organization: the planner then read every event or
-- entry of the organization to find the few of the run (milliseconds a run, growing with it).
CREATE OR REPLACE FUNCTION beckon_sequence(p_org uuid, p_genesis text) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  v_last bigint;
  v_seq bigint;
  v_prev text;
  v_hash text;
  v_row record;
BEGIN
  IF EXISTS (SELECT 1 FROM events WHERE org_id = p_org AND seq IS NULL) THEN
    INSERT INTO event_counters AS c (org_id, seq) VALUES (p_org, 0)
      ON CONFLICT (org_id) DO UPDATE SET seq = c.seq RETURNING seq INTO v_last;
    v_seq := v_last;
    FOR v_row IN
      SELECT id FROM events WHERE org_id = p_org AND seq IS NULL ORDER BY tx_id, id
    LOOP
      v_seq := v_seq + 1;
      UPDATE events SET seq = v_seq WHERE org_id = p_org AND id = v_row.id;
    END LOOP;
    IF v_seq > v_last THEN
      UPDATE event_counters SET seq = v_seq WHERE org_id = p_org;
      PERFORM pg_notify('beckon_events', p_org || ':' || (v_last + 1) || ':' || v_seq);
    END IF;
  END IF;
  IF EXISTS (SELECT 1 FROM audit_entries WHERE org_id = p_org AND seq IS NULL AND content_hash IS NOT NULL) THEN
    INSERT INTO audit_heads AS h (org_id, seq, prev_hash, hash) VALUES (p_org, 0, p_genesis, p_genesis)
      ON CONFLICT (org_id) DO UPDATE SET seq = h.seq RETURNING seq, prev_hash, hash INTO v_seq, v_prev, v_hash;
    FOR v_row IN
      SELECT id, content_hash FROM audit_entries
       WHERE org_id = p_org AND seq IS NULL AND content_hash IS NOT NULL ORDER BY id
    LOOP
      v_prev := v_hash;
      v_hash := encode(sha256(convert_to(v_prev || v_row.content_hash, 'UTF8')), 'hex');
      v_seq := v_seq + 1;
      UPDATE audit_entries SET seq = v_seq, prev_hash = v_prev, hash = v_hash
       WHERE org_id = p_org AND id = v_row.id;
    END LOOP;
    UPDATE audit_heads SET seq = v_seq, prev_hash = v_prev, hash = v_hash WHERE org_id = p_org;
  END IF;
END $$;
