"""Background jobs: starting, running, progress, retry and download of a `Job` (`running`), the
task the worker runs (`tasks`), the worker's liveness, and the job pages. Each part registers its
own kinds of work (`register_work`), so jobs imports none of them."""
