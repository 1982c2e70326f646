ALTER TABLE "specialist_rate_history" ALTER COLUMN "base_rate" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "specialist_rate_history" ALTER COLUMN "currency" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "specialists" ALTER COLUMN "monthly_rate_config" DROP NOT NULL;