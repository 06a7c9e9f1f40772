-- The monthly_notifications plan gate, enforced where every item is created: a limited plan
-- counts each new item in monthly_usage (organization, calendar month in UTC) and refuses the
-- insert at the limit. The upsert's row lock makes concurrent creations in one organization
-- count one after the other, so the limit is never overshot; the error aborts the whole
-- statement (item, audit, event, jobs) at once. Unlimited plans (null) are never counted.
CREATE FUNCTION beckon_count_notification() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  quota integer;
  usage_month date := date_trunc('month', NEW.created_at AT TIME ZONE 'UTC')::date;
  counted integer;
  current_usage integer;
BEGIN
  SELECT p.monthly_notifications INTO quota
    FROM subscriptions s JOIN plans p ON p.id = s.plan_id
   WHERE s.org_id = NEW.org_id;
  IF quota IS NULL THEN
    RETURN NEW;
  END IF;
  INSERT INTO monthly_usage AS u (org_id, month, notifications)
  SELECT NEW.org_id, usage_month, 1 WHERE quota > 0
  ON CONFLICT (org_id, month) DO UPDATE SET notifications = u.notifications + 1
   WHERE u.notifications < quota
  RETURNING notifications INTO counted;
  IF counted IS NULL THEN
    SELECT u.notifications INTO current_usage FROM monthly_usage u
     WHERE u.org_id = NEW.org_id AND u.month = usage_month;
    RAISE EXCEPTION 'monthly notification quota exhausted'
      USING ERRCODE = 'BK402',
            DETAIL = json_build_object('key', 'monthly_notifications', 'limit', quota,
                                       'current', coalesce(current_usage, 0))::text;
  END IF;
  RETURN NEW;
END $$;
--> statement-breakpoint
CREATE TRIGGER items_count_notification BEFORE INSERT ON items
  FOR EACH ROW EXECUTE FUNCTION beckon_count_notification();
