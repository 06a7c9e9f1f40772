-- Resource processes also remember which organizations have push devices (an item creation of
-- one without any skips queueing pushes); every change to a device tells them, for the
-- organization it leaves and the one it joins.
CREATE FUNCTION beckon_notify_devices() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' THEN
    PERFORM pg_notify('beckon_identity', 'devices:' || OLD.org_id);
  END IF;
  IF TG_OP <> 'DELETE' AND (TG_OP = 'INSERT' OR NEW.org_id IS DISTINCT FROM OLD.org_id) THEN
    PERFORM pg_notify('beckon_identity', 'devices:' || NEW.org_id);
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER devices_notify AFTER INSERT OR UPDATE OR DELETE ON devices
  FOR EACH ROW EXECUTE FUNCTION beckon_notify_devices();
