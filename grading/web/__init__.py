"""What every page shares: the refusal-to-answer handler and error pages (`errors`), lookups that
404 before they tell, the middleware, the sign-in throttle, log masking, and the template filters
every page uses."""
