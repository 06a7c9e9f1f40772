-- Resource processes remember which organizations have active outbound webhooks, so an item
-- change of an organization without any skips the webhook fan-out. Every change to a webhook
-- tells them at commit, on the channel of the identity cache (beckon_identity).
CREATE FUNCTION beckon_notify_webhooks() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('beckon_identity', 'webhooks:' || coalesce(NEW.org_id, OLD.org_id));
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER webhooks_notify AFTER INSERT OR UPDATE OR DELETE ON webhooks
  FOR EACH ROW EXECUTE FUNCTION beckon_notify_webhooks();
