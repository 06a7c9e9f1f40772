-- Resource processes cache resolved identities; every change that could end or narrow a
-- credential tells them at commit, on channel beckon_identity.
CREATE FUNCTION beckon_notify_identity() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_TABLE_NAME IN ('sessions', 'api_keys') THEN
    PERFORM pg_notify('beckon_identity', 'token:' || OLD.token_hash);
  ELSIF TG_TABLE_NAME = 'oauth_records' THEN
    IF OLD.model = 'AccessToken' THEN
      PERFORM pg_notify('beckon_identity', 'token:' || OLD.id_hash);
    END IF;
  ELSIF TG_TABLE_NAME = 'memberships' THEN
    PERFORM pg_notify('beckon_identity', 'member:' || OLD.org_id || ':' || OLD.user_id);
  ELSIF TG_TABLE_NAME = 'roles' THEN
    PERFORM pg_notify('beckon_identity', 'role:' || OLD.id);
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER sessions_notify_identity AFTER UPDATE OR DELETE ON sessions
  FOR EACH ROW EXECUTE FUNCTION beckon_notify_identity();
--> statement-breakpoint
CREATE TRIGGER api_keys_notify_identity AFTER UPDATE OR DELETE ON api_keys
  FOR EACH ROW EXECUTE FUNCTION beckon_notify_identity();
--> statement-breakpoint
CREATE TRIGGER oauth_records_notify_identity AFTER UPDATE OR DELETE ON oauth_records
  FOR EACH ROW EXECUTE FUNCTION beckon_notify_identity();
--> statement-breakpoint
CREATE TRIGGER memberships_notify_identity AFTER UPDATE OR DELETE ON memberships
  FOR EACH ROW EXECUTE FUNCTION beckon_notify_identity();
--> statement-breakpoint
CREATE TRIGGER roles_notify_identity AFTER UPDATE OR DELETE ON roles
  FOR EACH ROW EXECUTE FUNCTION beckon_notify_identity();
