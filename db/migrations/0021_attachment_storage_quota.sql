ALTER TABLE "plans" ADD COLUMN "attachment_storage_bytes" bigint;--> statement-breakpoint
CREATE INDEX "attachments_org_size_idx" ON "attachments" USING btree ("org_id","size");--> statement-breakpoint
-- Attachment storage per organization: Free 100 MiB, Team 10 GiB, Enterprise unlimited (null).
UPDATE plans SET attachment_storage_bytes = CASE code
  WHEN 'free' THEN 104857600
  WHEN 'team' THEN 10737418240
  ELSE NULL END;
