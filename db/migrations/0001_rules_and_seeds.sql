-- The three plans of the specification (null = unlimited) and their audit retention.
INSERT INTO plans (code, name, max_seats, max_teams, monthly_notifications, webhooks, agents, audit_retention_days) VALUES
  ('free', 'Free', 3, 1, 1000, 1, 1, 30),
  ('team', 'Team', 25, 5, 50000, 10, 10, 90),
  ('enterprise', 'Enterprise', NULL, NULL, NULL, NULL, NULL, 365);
--> statement-breakpoint
-- The four system roles, shared by every organization and read-only.
INSERT INTO roles (org_id, name, description, is_system, permissions) VALUES
  (NULL, 'owner', 'Full control of the organization, its billing and its deletion', true, ARRAY[
    'org.manage', 'org.delete', 'org.billing', 'users.invite', 'users.remove', 'users.change_role',
    'teams.create', 'teams.delete', 'teams.manage_members', 'channels.create', 'channels.delete',
    'channels.manage', 'webhooks.manage', 'items.read', 'items.write', 'items.archive', 'audit.read',
    'agents.manage']),
  (NULL, 'admin', 'Everything an owner can do except billing and deleting the organization', true, ARRAY[
    'org.manage', 'users.invite', 'users.remove', 'users.change_role',
    'teams.create', 'teams.delete', 'teams.manage_members', 'channels.create', 'channels.delete',
    'channels.manage', 'webhooks.manage', 'items.read', 'items.write', 'items.archive', 'audit.read',
    'agents.manage']),
  (NULL, 'member', 'Reads, answers and archives items', true, ARRAY['items.read', 'items.write', 'items.archive']),
  (NULL, 'viewer', 'Reads items', true, ARRAY['items.read']);
--> statement-breakpoint
-- System roles are read-only in the database too.
CREATE FUNCTION beckon_protect_system_roles() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF OLD.is_system THEN
    RAISE EXCEPTION 'system roles cannot be changed' USING ERRCODE = 'check_violation';
  END IF;
  RETURN CASE WHEN TG_OP = 'DELETE' THEN OLD ELSE NEW END;
END $$;
--> statement-breakpoint
CREATE TRIGGER roles_protect_system BEFORE UPDATE OR DELETE ON roles
  FOR EACH ROW EXECUTE FUNCTION beckon_protect_system_roles();
--> statement-breakpoint
-- Every organization gets its subscription (on Free) in the same statement that creates it.
CREATE FUNCTION beckon_create_subscription() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO subscriptions (org_id, plan_id, status)
  SELECT NEW.id, p.id, 'active' FROM plans p WHERE p.code = 'free';
  RETURN NEW;
END $$;
--> statement-breakpoint
CREATE TRIGGER organizations_create_subscription AFTER INSERT ON organizations
  FOR EACH ROW EXECUTE FUNCTION beckon_create_subscription();
--> statement-breakpoint
-- A personal workspace is pinned to the Free plan.
CREATE FUNCTION beckon_personal_plan_is_free() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM organizations o WHERE o.id = NEW.org_id AND o.is_personal)
     AND NOT EXISTS (SELECT 1 FROM plans p WHERE p.id = NEW.plan_id AND p.code = 'free') THEN
    RAISE EXCEPTION 'a personal workspace stays on the Free plan' USING ERRCODE = 'check_violation';
  END IF;
  RETURN NEW;
END $$;
--> statement-breakpoint
CREATE TRIGGER subscriptions_personal_plan BEFORE INSERT OR UPDATE OF plan_id, org_id ON subscriptions
  FOR EACH ROW EXECUTE FUNCTION beckon_personal_plan_is_free();
